package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A reflog (logs/<refname>) has one line per update, oldest first, in git's format:
//
//	<old hex> SP <new hex> SP <name> SP <<email>> SP <unix seconds> SP <+hhmm> [TAB <message>] LF

// reflogLine formats one reflog line with the committer identity and a cleaned message.
func (r *Repo) reflogLine(oldHash, newHash Hash, msg string, now time.Time) string {
	b := make([]byte, 0, 128+len(msg))
	b = oldHash.appendHex(b)
	b = append(b, ' ')
	b = newHash.appendHex(b)
	b = append(b, ' ')
	b = append(b, r.reflogIdent(now)...)
	if msg = cleanReflogMsg(msg); msg != "" {
		b = append(b, '\t')
		b = append(b, msg...)
	}
	b = append(b, '\n')
	return string(b)
}

// reflogIdent is the committer identity git puts in reflogs, "Name <email> 1700000000 +0100":
// the identity of committer (shared with commits). The time is GIT_COMMITTER_DATE when it is
// in git's raw form ("[@]<seconds> <+hhmm>"), else now.
func (r *Repo) reflogIdent(now time.Time) string {
	name, email := r.committer()
	date := now.Format("-0700")
	secs := now.Unix()
	if s, tz, ok := parseRawDate(os.Getenv("GIT_COMMITTER_DATE")); ok {
		secs, date = s, tz
	}
	return name + " <" + email + "> " + strconv.FormatInt(secs, 10) + " " + date
}

// withoutCrud is git's strbuf_addstr_without_crud: trim leading and trailing "crud" (control
// characters, space and .,:;<>"\') and drop the delimiters '\n', '<' and '>'.
func withoutCrud(s string) string {
	crud := func(c byte) bool {
		return c <= ' ' || strings.IndexByte(`.,:;<>"\'`, c) >= 0
	}
	i, j := 0, len(s)
	for i < j && crud(s[i]) {
		i++
	}
	for j > i && crud(s[j-1]) {
		j--
	}
	s = s[i:j]
	if strings.ContainsAny(s, "\n<>") {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '<' || r == '>' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// parseRawDate parses git's raw date "[@]<seconds> <+|-hhmm>".
func parseRawDate(s string) (int64, string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	secStr, tz, ok := strings.Cut(s, " ")
	if !ok || len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return 0, "", false
	}
	secs, err := strconv.ParseInt(secStr, 10, 64)
	if err != nil || secs < 0 {
		return 0, "", false
	}
	if _, err := strconv.ParseUint(tz[1:], 10, 16); err != nil {
		return 0, "", false
	}
	return secs, tz, true
}

// cleanReflogMsg is git's copy_reflog_msg: whitespace runs become one space, leading and
// trailing whitespace goes.
func cleanReflogMsg(msg string) string {
	b := make([]byte, 0, len(msg))
	wasSpace := true
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		sp := isSpace(c)
		if wasSpace && sp {
			continue
		}
		wasSpace = sp
		if sp {
			c = ' '
		}
		b = append(b, c)
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// appendReflog appends a line to a reflog, creating the file and its directories. A directory
// in the way (the reflogs of deleted refs below this name) is removed if empty, as git does.
func appendReflog(path, line string) error {
	var f *os.File
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err == nil {
			break
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if merr := os.MkdirAll(filepath.Dir(path), 0o777); merr != nil {
				return fmt.Errorf("create reflog %s: %w", path, merr)
			}
		case isDirErr(path, err):
			removeEmptyDirs(path)
		default:
			return fmt.Errorf("open reflog %s: %w", path, err)
		}
	}
	if err != nil {
		return fmt.Errorf("open reflog %s: %w (are there still logs below it?)", path, err)
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("append to reflog %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to reflog %s: %w", path, err)
	}
	return nil
}
