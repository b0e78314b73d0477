// Command tidings follows websites' change information and serves it as
// feeds. See the README for the subcommands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		// A second signal ends the process at once, as without tidings.
		signal.Stop(sigs)
		cancel(fmt.Errorf("received %s", signalName(s)))
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(exitCode(err, os.Stderr))
}

// signalName is the name a person sent the signal by (kill -TERM, ^C).
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case os.Interrupt:
		return "SIGINT"
	}
	return s.String()
}
