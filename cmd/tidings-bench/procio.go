package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// procRead is the bytes a process has read so far, the kernel's count
// (rchar of /proc/PID/io): from sockets (what it downloaded) and files
// alike, so an upper bound on what it took from the network.
func procRead(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no rchar in /proc/%d/io", pid)
}

// waitExited waits until the child pid has ended without reaping it
// (waitid with WNOWAIT), so that its /proc files can still be read: its
// count of bytes read is then final.
func waitExited(pid int) error {
	const (
		pPID    = 1
		wExited = 4
		wNoWait = 0x01000000
	)
	var info [128]byte // a siginfo_t, unread
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}
