// rust_lost_update: a lost update in Rust.  Two threads each read a
// shared AtomicUsize and store the value plus one: each access is atomic,
// the update is not, and when both load before either stores, main's
// assert_eq! panics (exit status 101).  The racing pair is a store (line
// 18) after the other thread's load (line 17), which std's AtomicUsize,
// inlined from the standard library, performs for the program's closure.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

fn main() {
    let counter = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..2 {
        let c = Arc::clone(&counter);
        workers.push(thread::spawn(move || {
            let v = c.load(Ordering::SeqCst);
            c.store(v + 1, Ordering::SeqCst);
        }));
    }
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 2, "lost update");
}
