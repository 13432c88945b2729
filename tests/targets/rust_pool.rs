// rust_pool (correct): worker threads take jobs from an mpsc channel
// shared behind Arc<Mutex<Receiver>>, send their results back on another
// channel and add to a total under Arc<Mutex<u64>>.  Every schedule
// prints the same two lines.  Built by tests/e2e/real_suite.sh with
// Debian's rustc.
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let (job_tx, job_rx) = mpsc::channel::<u64>();
    let (res_tx, res_rx) = mpsc::channel::<u64>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let total = Arc::new(Mutex::new(0u64));

    let workers: Vec<_> = (0..2)
        .map(|_| {
            let rx = Arc::clone(&job_rx);
            let tx = res_tx.clone();
            let total = Arc::clone(&total);
            thread::spawn(move || loop {
                let job = rx.lock().unwrap().recv();
                match job {
                    Ok(n) => {
                        let r = n * n;
                        *total.lock().unwrap() += r;
                        tx.send(r).unwrap();
                    }
                    Err(_) => break,
                }
            })
        })
        .collect();
    drop(res_tx);
    for n in 1..=30 {
        job_tx.send(n).unwrap();
    }
    drop(job_tx);
    let mut results: Vec<u64> = res_rx.iter().collect();
    for w in workers {
        w.join().unwrap();
    }
    results.sort();
    let sum: u64 = results.iter().sum();
    println!("rust_pool: {} results, sum {}", results.len(), sum);
    println!("rust_pool: total {}", *total.lock().unwrap());
}
