package gitstore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// A lock git-loop takes is born holding its owner: before creating "<path>.lock" git-loop
// writes a file in <commondir>/loop/locks/ whose name says who it is (host, this boot of the
// machine, pid namespace, pid and the process's start time) and hard-links it to the lock's
// name. The lock is therefore the same file (inode) as its owner record from the instant it
// exists until it is renamed into place, and the record keeps that inode alive, so no other
// file can take its number meanwhile: a lock that is the same file as a record is provably
// that record owner's. A lock with no such record is git's own (git writes no owner), or
// one made where hard links are not supported; git-loop never assumes such a lock is stale
// unless it is very old (see UpdateRef).

// ownerPrefix starts the name of every owner record.
const ownerPrefix = "gl1_"

// lockOwner identifies a process: on the machine and boot where HostKey and NS match ours,
// Pid with start time Start is that process, and no other.
type lockOwner struct {
	Host    string // the host's name, for messages (sanitised)
	HostKey string // this boot of this machine (Linux: boot_id); "" when unknown
	NS      string // the pid namespace (Linux); "" elsewhere
	Pid     int
	Start   uint64 // when the process started, in the system's own unit; 0 when unknown
}

// ownerState is what can be told of a lock owner from here.
type ownerState int

const (
	ownerAlive   ownerState = iota // it runs (or cannot be told apart from one that does)
	ownerDead                      // provably gone: its pid is free or belongs to a later process
	ownerUnknown                   // another host, another boot or pid namespace: never assumed dead
)

var (
	selfOnce  sync.Once
	selfOwner lockOwner
)

// currentOwner is this process as lock owner, worked out once.
func currentOwner() lockOwner {
	selfOnce.Do(func() {
		host, _ := os.Hostname()
		selfOwner = lockOwner{Host: sanitizeHost(host), Pid: os.Getpid()}
		selfOwner.HostKey, selfOwner.NS = hostKey()
		if start, ok := processStart(selfOwner.Pid); ok {
			selfOwner.Start = start
		} else {
			selfOwner.HostKey = "" // no way to tell our pid from a later one: claim nothing
		}
	})
	return selfOwner
}

// sanitizeHost keeps the characters of a host name that are safe in a file name and cannot
// be mistaken for the record's separator.
func sanitizeHost(h string) string {
	var b strings.Builder
	for i := 0; i < len(h) && b.Len() < 63; i++ {
		c := h[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// recordName is a new, unique owner record name for o.
func (o lockOwner) recordName() string {
	var nonce [6]byte
	rand.Read(nonce[:])
	return fmt.Sprintf("%s%s_%s_%s_%d_%d_%s", ownerPrefix, o.Host, o.HostKey, o.NS, o.Pid, o.Start, hex.EncodeToString(nonce[:]))
}

// parseRecordName reads an owner record's name.
func parseRecordName(name string) (lockOwner, bool) {
	rest, ok := strings.CutPrefix(name, ownerPrefix)
	if !ok {
		return lockOwner{}, false
	}
	f := strings.Split(rest, "_")
	if len(f) != 6 {
		return lockOwner{}, false
	}
	pid, err1 := strconv.Atoi(f[3])
	start, err2 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return lockOwner{}, false
	}
	return lockOwner{Host: f[0], HostKey: f[1], NS: f[2], Pid: pid, Start: start}, true
}

// state tells whether o still runs, as far as can be known from this process.
func (o lockOwner) state() ownerState {
	me := currentOwner()
	if me.HostKey == "" || o.HostKey != me.HostKey || o.NS != me.NS || o.Start == 0 {
		return ownerUnknown
	}
	if o.Pid == me.Pid {
		if o.Start == me.Start {
			return ownerAlive
		}
		return ownerDead // our pid, an earlier process's start
	}
	start, ok := processStart(o.Pid)
	if !ok || start != o.Start {
		return ownerDead
	}
	return ownerAlive
}

// String names o for a person.
func (o lockOwner) String() string {
	host := o.Host
	if host == "" {
		host = "an unnamed host"
	}
	return fmt.Sprintf("git-loop (pid %d on %s)", o.Pid, host)
}

// OwnerName is a new, unique name that says which process made it (see recordName): for
// files and marks that outlive their maker when it is killed, so that whoever finds them
// can tell whether their maker still runs (OwnerGone).
func OwnerName() string { return currentOwner().recordName() }

// OwnerGone reports whether the process that made name (OwnerName) is provably gone: its
// pid is free or belongs to a later process. A name made on another host, boot or pid
// namespace, or not made by OwnerName, is never said to be gone.
func OwnerGone(name string) bool {
	o, ok := parseRecordName(name)
	return ok && o.state() == ownerDead
}
