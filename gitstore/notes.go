package gitstore

import (
	"bytes"
	"errors"
	"fmt"
)

// Notes are stored as git stores them: a notes ref (refs/notes/loop) points to a chain of
// commits whose tree maps each annotated object, by its hex name, to a note blob. Git splits
// names into fan-out directories ("ab/cdef…") once a notes tree grows large, and reads any
// mix of flat and fanned-out entries; git-loop reads both and writes a new note flat, or where
// the object's existing note already is.

// maxNoteRetries bounds AppendNotes' restarts when another writer moves the notes ref.
const maxNoteRetries = 50

// ReadNote returns the note on object obj in the notes tree of commit notesTip, and whether
// there is one.
func (r *Repo) ReadNote(notesTip, obj Hash) ([]byte, bool, error) {
	c, err := r.ReadCommit(notesTip)
	if err != nil {
		return nil, false, fmt.Errorf("read notes %s: %w", notesTip, err)
	}
	_, blob, ok, err := r.findNote(c.Tree, obj.String(), "")
	if err != nil || !ok {
		return nil, false, err
	}
	data, err := r.ReadTyped(BlobObject, blob)
	return data, err == nil, err
}

// findNote looks for the note on the object named hex in notes tree t (reached at prefix),
// following fan-out directories: an entry named hex itself, or a directory named by its
// next two digits holding the rest.
func (r *Repo) findNote(t Hash, hex, prefix string) (path string, blob Hash, ok bool, err error) {
	es, err := r.ReadTree(t)
	if err != nil {
		return "", ZeroHash, false, fmt.Errorf("read notes tree %s: %w", t, err)
	}
	for _, e := range es {
		if e.Name == hex && e.Mode != ModeTree {
			return prefix + hex, e.Hash, true, nil
		}
	}
	if len(hex) <= 2 {
		return "", ZeroHash, false, nil
	}
	for _, e := range es {
		if e.Name == hex[:2] && e.Mode == ModeTree {
			return r.findNote(e.Hash, hex[2:], prefix+hex[:2]+"/")
		}
	}
	return "", ZeroHash, false, nil
}

// AppendNotes adds one line to the note of each object in lines, in notes ref ref, as one new
// notes commit by who: an existing note is kept and the line appended to it (a line the note
// already holds is not added twice), never overwritten. It retries from the fresh tip when
// another writer moves the ref meanwhile.
func (r *Repo) AppendNotes(ref string, lines map[Hash]string, who Signature) error {
	for attempt := 0; ; attempt++ {
		err := r.appendNotesOnce(ref, lines, who)
		if errors.Is(err, ErrRefChanged) && attempt < maxNoteRetries {
			continue
		}
		return err
	}
}

func (r *Repo) appendNotesOnce(ref string, lines map[Hash]string, who Signature) error {
	old, err := r.ReadRef(ref)
	if err != nil && !errors.Is(err, ErrRefNotFound) {
		return fmt.Errorf("add notes: %w", err)
	}
	root := ZeroHash
	if !old.IsZero() {
		c, err := r.ReadCommit(old)
		if err != nil {
			return fmt.Errorf("add notes: read %s: %w", ref, err)
		}
		root = c.Tree
	}
	blobs := map[string]Hash{}
	for obj, line := range lines {
		path, blob, err := r.appendedNote(root, obj, line)
		if err != nil {
			return err
		}
		if !blob.IsZero() {
			blobs[path] = blob
		}
	}
	if len(blobs) == 0 {
		return nil
	}
	tree, err := r.EditTree(root, blobs)
	if err != nil {
		return fmt.Errorf("add notes: %w", err)
	}
	c := &Commit{Tree: tree, Parents: nonZeroHashes(old), Author: who, Committer: who, Message: "Notes added by 'git loop'\n"}
	commit, err := r.WriteCommit(c)
	if err != nil {
		return fmt.Errorf("add notes: %w", err)
	}
	return r.UpdateRef(ref, commit, old, "notes: Notes added by 'git loop'")
}

// appendedNote returns where obj's note lives in notes tree root (its object name when it
// has none yet) and the blob of that note with line appended; ZeroHash when the note
// already holds line.
func (r *Repo) appendedNote(root, obj Hash, line string) (string, Hash, error) {
	path, blob, ok := obj.String(), ZeroHash, false
	if !root.IsZero() {
		var err error
		if path, blob, ok, err = r.findNote(root, obj.String(), ""); err != nil {
			return "", ZeroHash, err
		}
		if !ok {
			path = obj.String()
		}
	}
	var note []byte
	if ok {
		var err error
		if note, err = r.ReadTyped(BlobObject, blob); err != nil {
			return "", ZeroHash, fmt.Errorf("add notes: read the note on %s: %w", obj, err)
		}
	}
	if hasLine(note, line) {
		return path, ZeroHash, nil
	}
	note = bytes.TrimRight(note, "\n")
	if len(note) > 0 {
		note = append(note, '\n')
	}
	note = append(note, line...)
	note = append(note, '\n')
	h, err := r.WriteObject(BlobObject, note)
	if err != nil {
		return "", ZeroHash, fmt.Errorf("add notes: %w", err)
	}
	return path, h, nil
}

// hasLine reports whether note holds line as a whole line.
func hasLine(note []byte, line string) bool {
	for _, l := range bytes.Split(note, []byte("\n")) {
		if string(l) == line {
			return true
		}
	}
	return false
}

func nonZeroHashes(hs ...Hash) []Hash {
	var out []Hash
	for _, h := range hs {
		if !h.IsZero() {
			out = append(out, h)
		}
	}
	return out
}
