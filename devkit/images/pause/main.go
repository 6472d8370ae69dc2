// Command pause is the first process of a pod sandbox: it holds the pod's namespaces open and does
// nothing else. The test bed packs it as the pause image (scripts/testbed/build.sh pause; docs/testbed.md).
//
// As PID 1 of the sandbox it must end on SIGINT/SIGTERM (PID 1 has no default signal actions: without a
// handler the runtime's stop request would be ignored) and reap the orphans the pod's processes leave
// behind (they are re-parented to it), or they stay zombies until the pod goes.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// version is set by the build (-ldflags "-X main.version=..."), from PAUSE_VERSION in versions.env.
var version = "unset"

func main() {
	if len(os.Args) > 1 {
		if os.Args[1] == "-v" {
			fmt.Printf("pause (pulumi-karmada test bed) %s\n", version)
			return
		}
		fmt.Fprintf(os.Stderr, "pause: unknown argument %q (only -v, which prints the version)\n", os.Args[1])
		os.Exit(2)
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			reapChildren()
			continue
		}
		os.Exit(0)
	}
}

// reapChildren collects every child that has exited. Signals coalesce, so one SIGCHLD may stand for
// several exits: wait until none is left.
func reapChildren() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return // ECHILD (no children) or none exited yet
		}
	}
}
