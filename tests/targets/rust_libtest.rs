// rust_libtest: a `cargo test`-style test binary (built with rustc
// --test): libtest runs each #[test] in a thread of its own and captures
// its output, so a failed test's panic is printed at the end, on stdout,
// under "---- NAME stdout ----", and the binary exits with status 101
// with nothing on stderr.  lost_update loses an update over an
// AtomicUsize (the stores, line 22) and its assert_eq! (line 29) panics;
// the other test passes.
#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn lost_update() {
        let counter = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let c = Arc::clone(&counter);
                thread::spawn(move || {
                    let v = c.load(Ordering::SeqCst);
                    c.store(v + 1, Ordering::SeqCst);
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(counter.load(Ordering::SeqCst), 2, "lost update");
    }

    #[test]
    fn arithmetic() {
        assert_eq!(2 + 2, 4);
    }
}
