// rust_check_then_act: the check-then-act bug of check_then_act.c in Rust.
// std::sync::Mutex never calls pthread: it locks with an atomic
// compare-exchange and sleeps on a futex only when contended, so schedctl
// sees it through the atomic instructions of the program's own code.
// Two threads withdraw 10 from a balance of 10, checking in one critical
// section and withdrawing in another: both can pass the check, and main's
// assert! panics (exit status 101).  With the argument "fixed" each
// thread checks and withdraws under one lock: correct in every schedule.
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let fixed = std::env::args().nth(1).map_or(false, |a| a == "fixed");
    let balance = Arc::new(Mutex::new(10i32));
    let mut workers = Vec::new();
    for _ in 0..2 {
        let b = Arc::clone(&balance);
        workers.push(thread::spawn(move || {
            if fixed {
                let mut g = b.lock().unwrap();
                if *g >= 10 {
                    *g -= 10;
                }
                return;
            }
            let enough = *b.lock().unwrap() >= 10;
            if enough {
                *b.lock().unwrap() -= 10;
            }
        }));
    }
    for w in workers {
        w.join().unwrap();
    }
    let left = *balance.lock().unwrap();
    assert!(left >= 0, "overdrawn: balance={}", left);
    println!("rust_check_then_act: balance={}", left);
}
