// rust_panic: a worker thread panics (an index out of bounds) and main
// unwraps its join, so main panics too: with RUST_BACKTRACE=1 the runtime
// prints two backtraces (symbolising through the DWARF of the binary and
// dl_iterate_phdr) before exiting with status 101.  The verdict must be
// that exit, with the panic's message, in every schedule.
use std::thread;

fn main() {
    let v: Vec<u32> = (0..4).collect();
    let worker = thread::spawn(move || {
        let i = v.len() + std::env::args().count();
        v[i]
    });
    let x = worker.join().unwrap();
    println!("rust_panic: {}", x);
}
