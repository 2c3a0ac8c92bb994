package gitstore

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash is a SHA-1 object name.
type Hash [20]byte

// ZeroHash is the all-zero name git uses for "no object".
var ZeroHash Hash

// ErrObjectNotFound means the object is in no loose file, pack or alternate.
var ErrObjectNotFound = errors.New("object not found")

// ParseHash parses 40 hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 40 {
		return h, fmt.Errorf("parse object name %q: want 40 hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("parse object name %q: %w", s, err)
	}
	return h, nil
}

// String returns the 40-digit hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether h is ZeroHash.
func (h Hash) IsZero() bool { return h == ZeroHash }

// ObjectType is a git object type.
type ObjectType int8

// The object types git-loop reads and writes (tags it only reads).
const (
	BlobObject   ObjectType = ObjectType(plumbing.BlobObject)
	TreeObject   ObjectType = ObjectType(plumbing.TreeObject)
	CommitObject ObjectType = ObjectType(plumbing.CommitObject)
	TagObject    ObjectType = ObjectType(plumbing.TagObject)
)

// String returns git's name of the type ("blob", "tree", "commit").
func (t ObjectType) String() string { return plumbing.ObjectType(t).String() }

// HashObject computes the name git gives data stored as an object of type t.
func HashObject(t ObjectType, data []byte) Hash {
	o := objectHashers.Get().(*objectHasher)
	defer objectHashers.Put(o)
	o.h.Reset()
	o.h.Write(appendHeader(o.header[:0], t, int64(len(data))))
	o.h.Write(data)
	var out Hash
	o.h.Sum(out[:0])
	return out
}

// objectHasher is a SHA-1 state and room for an object header, pooled: a snapshot names
// thousands of objects, and with garbage collection off a state made for each stayed
// allocated until exit.
type objectHasher struct {
	h      hash.Hash
	header [32]byte
}

var objectHashers = sync.Pool{New: func() any { return &objectHasher{h: sha1.New()} }}

// appendHeader appends an object's header ("blob 12\x00") to b.
func appendHeader(b []byte, t ObjectType, size int64) []byte {
	b = append(b, t.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, size, 10)
	return append(b, 0)
}

func writeHeader(w io.Writer, t ObjectType, size int64) {
	var buf [32]byte
	w.Write(appendHeader(buf[:0], t, size))
}

// WriteObject stores data as a loose object unless an object of that name already exists
// (which is then freshened, as git does, so that a concurrent prune keeps it), and returns
// its name.
func (r *Repo) WriteObject(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	b := r.openBatch()
	if b != nil {
		if _, _, ok := b.get(h); ok {
			return h, nil
		}
	}
	if r.objects().freshen(h) {
		return h, nil
	}
	if b != nil && b.add(h, t, data) {
		return h, nil
	}
	return h, r.writeLoose(t, h, data)
}

// WriteUniqueObject stores data as a loose object without first looking for an existing
// copy. It is for content that is new by construction (state records carrying timestamps,
// trees and commits containing them): the lookup would load every pack index for nothing.
// Should the object exist after all, it is rewritten with the same bytes, which is harmless.
func (r *Repo) WriteUniqueObject(t ObjectType, data []byte) (Hash, error) {
	h := HashObject(t, data)
	if b := r.openBatch(); b != nil && b.add(h, t, data) {
		return h, nil
	}
	return h, r.writeLoose(t, h, data)
}

// HasObject reports whether the object exists (loose, packed or in an alternate).
func (r *Repo) HasObject(h Hash) bool {
	if _, _, ok := r.batched(h); ok {
		return true
	}
	return r.objects().has(h)
}

// ReadObject returns an object's type and content.
func (r *Repo) ReadObject(h Hash) (ObjectType, []byte, error) {
	if t, data, ok := r.batched(h); ok {
		return t, data, nil
	}
	t, data, err := r.objects().read(h)
	if err != nil {
		return 0, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return t, data, nil
}

// ReadTyped reads an object and checks its type.
func (r *Repo) ReadTyped(want ObjectType, h Hash) ([]byte, error) {
	t, data, err := r.ReadObject(h)
	if err != nil {
		return nil, err
	}
	if t != want {
		return nil, fmt.Errorf("read %s %s: object is a %s", want, h, t)
	}
	return data, nil
}
