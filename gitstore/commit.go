package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Signature is an author or committer line.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object.
type Commit struct {
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// Encode serializes c as git does.
func (c *Commit) Encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\n", c.Author.encode())
	fmt.Fprintf(&b, "committer %s\n", c.Committer.encode())
	b.WriteByte('\n')
	b.WriteString(c.Message)
	return b.Bytes()
}

func (s Signature) encode() string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

// ParseCommit parses a commit object's content. Headers other than tree, parent, author and
// committer (gpgsig, encoding, mergetag…) are skipped.
func ParseCommit(data []byte) (*Commit, error) {
	c := &Commit{}
	head, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		head, msg = bytes.TrimSuffix(data, []byte("\n")), nil
	}
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		var err error
		switch key {
		case "tree":
			c.Tree, err = ParseHash(val)
		case "parent":
			var p Hash
			p, err = ParseHash(val)
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author, err = parseSignature(val)
		case "committer":
			c.Committer, err = parseSignature(val)
		}
		if err != nil {
			return nil, fmt.Errorf("parse commit: %s: %w", key, err)
		}
	}
	if c.Tree.IsZero() {
		return nil, fmt.Errorf("parse commit: no tree")
	}
	return c, nil
}

func parseSignature(s string) (Signature, error) {
	lt, gt := strings.IndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("bad signature %q", s)
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	fields := strings.Fields(s[gt+1:])
	if len(fields) >= 1 {
		sec, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return Signature{}, fmt.Errorf("bad time in %q", s)
		}
		loc := time.UTC
		if len(fields) >= 2 {
			if t, err := time.Parse("-0700", fields[1]); err == nil {
				loc = t.Location()
			}
		}
		sig.When = time.Unix(sec, 0).In(loc)
	}
	return sig, nil
}

// ReadCommit reads and parses a commit object.
func (r *Repo) ReadCommit(h Hash) (*Commit, error) {
	data, err := r.ReadTyped(CommitObject, h)
	if err != nil {
		return nil, err
	}
	return ParseCommit(data)
}

// WriteCommit stores c and returns its name. Commits carry a time and their parents, so they
// are written without an existence lookup (see WriteUniqueObject).
func (r *Repo) WriteCommit(c *Commit) (Hash, error) {
	return r.WriteUniqueObject(CommitObject, c.Encode())
}

// Identity is the signature git would use for a new commit now: the committer identity of
// committer (environment, committer.*, user.*, cleaned as git cleans it) at time now. Commits
// and reflog lines use this one identity.
func (r *Repo) Identity(now time.Time) Signature {
	name, email := r.committer()
	return Signature{Name: name, Email: email, When: now}
}

// committer is the committer name and email git records: GIT_COMMITTER_NAME and
// GIT_COMMITTER_EMAIL, else committer.name and committer.email, else user.name and user.email
// from the configuration, else "git-loop" <git-loop@localhost>. Each is cleaned as git does
// (see withoutCrud), so no value can break the "Name <email>" line of a commit or reflog.
func (r *Repo) committer() (name, email string) {
	return r.identPart("GIT_COMMITTER_NAME", "name", "git-loop"),
		r.identPart("GIT_COMMITTER_EMAIL", "email", "git-loop@localhost")
}

// identPart is one field of committer: the environment variable env, else committer.<key>,
// else user.<key>, cleaned; def when that leaves nothing.
func (r *Repo) identPart(env, key, def string) string {
	v := os.Getenv(env)
	if v == "" && r.Config != nil {
		if v = r.Config.Get("committer", "", key); v == "" {
			v = r.Config.Get("user", "", key)
		}
	}
	if v = withoutCrud(v); v == "" {
		v = def
	}
	return v
}
