package loop

import (
	"encoding/json"
	"fmt"

	"github.com/git-loop/git-loop/gitstore"
)

// stateTree builds the tree of a new state commit: the parent's tree with state.json
// replaced, the new iteration record added, and loop.json set when ch carries a config.
func (s *Store) stateTree(parent gitstore.Hash, ch *change) (gitstore.Hash, error) {
	base := gitstore.ZeroHash
	if !parent.IsZero() {
		c, err := s.Repo.ReadCommit(parent)
		if err != nil {
			return gitstore.ZeroHash, fmt.Errorf("read loop state %s: %w", parent, err)
		}
		base = c.Tree
	}
	blobs := map[string]gitstore.Hash{}
	add := func(path string, v any) error { return s.addJSON(blobs, path, v) }
	ch.state.Problems = nil // what status saw now, never part of the record
	if err := add(StateFile, &ch.state); err != nil {
		return gitstore.ZeroHash, err
	}
	if ch.config != nil {
		if err := add(configFile, ch.config); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	if ch.iteration != nil {
		if err := add(IterationPath(ch.iteration.Number), ch.iteration); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	for name, data := range ch.files {
		h, err := s.Repo.WriteUniqueObject(gitstore.BlobObject, data)
		if err != nil {
			return gitstore.ZeroHash, fmt.Errorf("write %s: %w", name, err)
		}
		blobs[name] = h
	}
	return s.Repo.EditTree(base, blobs)
}

// stateTreeConfigOnly is the tree of a loop's root commit: loop.json alone.
func (s *Store) stateTreeConfigOnly(ch *change) (gitstore.Hash, error) {
	blobs := map[string]gitstore.Hash{}
	if err := s.addJSON(blobs, configFile, ch.config); err != nil {
		return gitstore.ZeroHash, err
	}
	return s.Repo.EditTree(gitstore.ZeroHash, blobs)
}

// addJSON stores v as an indented JSON blob and records it at path in blobs.
func (s *Store) addJSON(blobs map[string]gitstore.Hash, path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	h, err := s.Repo.WriteUniqueObject(gitstore.BlobObject, append(data, '\n'))
	blobs[path] = h
	return err
}
