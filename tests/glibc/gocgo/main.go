// SPDX-License-Identifier: BSD-2-Clause
// SPDX-FileCopyrightText: 2026 the elfthp-align authors
// The cgo program of make check-glibc: walker.c's text (linked in through
// cgo, so the external linker lays out the file) walked from Go; with
// --hold it then prints "ready" and waits to be killed.
package main

// unsigned long walk_text(void);
import "C"

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	fmt.Printf("walked, sum %x\n", uint64(C.walk_text()))
	if len(os.Args) > 1 && os.Args[1] == "--hold" {
		fmt.Println("ready")
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, os.Interrupt)
		<-c
	}
}
