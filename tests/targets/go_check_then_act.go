// go_check_then_act: check_then_act.c's bug between two goroutines: each
// checks the balance under a sync.Mutex and withdraws under another lock
// section.  schedctl controls OS threads, not goroutines (Go's scheduler
// multiplexes them), so the bug is not expected to be found; the binary
// checks that a Go program at --granularity mem instruments only package
// main (not the runtime) and ends every run quickly.  With the argument
// "fixed" it checks and withdraws under one lock; with "panic" it panics
// at the end, for the report of a Go panic.
package main

import (
	"fmt"
	"os"
	"sync"
)

func main() {
	fixed := len(os.Args) > 1 && os.Args[1] == "fixed"
	var mu sync.Mutex
	balance := 10
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			enough := balance >= 10
			if fixed && enough {
				balance -= 10
			}
			mu.Unlock()
			if !fixed && enough {
				mu.Lock()
				balance -= 10
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(os.Args) > 1 && os.Args[1] == "panic" {
		panic("asked to panic")
	}
	if balance < 0 {
		panic(fmt.Sprintf("overdrawn: %d", balance))
	}
	fmt.Println("balance", balance)
}
