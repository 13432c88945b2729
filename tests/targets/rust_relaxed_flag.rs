// rust_relaxed_flag: a check-then-act on a Relaxed atomic flag.  Three
// threads each start a service unless the flag says it was started:
// load, then store, no compare-exchange, so two of them can both see the
// flag clear and both start it; main then panics (exit status 101).
// The load and the store are plain movs that the line tables give to
// core's atomic.rs, inlined into the program's own code: they were never
// scheduling points (rules 3 left Rust's standard library out), and no
// granularity found the bug.  With the argument "fixed" the flag is
// claimed with compare_exchange: correct in every schedule.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

static STARTED: AtomicBool = AtomicBool::new(false);
static STARTS: AtomicUsize = AtomicUsize::new(0);

fn ensure_started(fixed: bool) {
    if fixed {
        if STARTED
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            STARTS.fetch_add(1, Ordering::Relaxed);
        }
        return;
    }
    if !STARTED.load(Ordering::Relaxed) {
        STARTED.store(true, Ordering::Relaxed);
        STARTS.fetch_add(1, Ordering::Relaxed);
    }
}

fn main() {
    let fixed = std::env::args().nth(1).map_or(false, |a| a == "fixed");
    let workers: Vec<_> = (0..3)
        .map(|_| thread::spawn(move || ensure_started(fixed)))
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let n = STARTS.load(Ordering::Relaxed);
    assert!(n == 1, "service started {} times", n);
}
