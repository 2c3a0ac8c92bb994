package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResolveHeadAt resolves HEAD of the repository whose git directory is gitDir (used for
// nested repositories and submodules, which are not opened as Repos). It returns ZeroHash
// and no error for an unborn branch.
func ResolveHeadAt(gitDir string) (Hash, error) {
	common, err := commonDir(gitDir)
	if err != nil {
		return ZeroHash, err
	}
	name := "HEAD"
	for depth := 0; depth < 5; depth++ {
		dir := common
		if name == "HEAD" {
			dir = gitDir
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) && name != "HEAD" {
			h, ok, err := headPackedLookup(common, name)
			if err != nil || ok {
				return h, err
			}
			return ZeroHash, nil // unborn
		}
		if err != nil {
			return ZeroHash, fmt.Errorf("resolve HEAD in %q: %w", gitDir, err)
		}
		line := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(line, "ref: "); ok {
			name = target
			continue
		}
		return ParseHash(line)
	}
	return ZeroHash, fmt.Errorf("resolve HEAD in %q: symbolic refs nest too deeply", gitDir)
}

// headPackedLookup finds name in common/packed-refs.
func headPackedLookup(common, name string) (Hash, bool, error) {
	data, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return ZeroHash, false, nil
	}
	if err != nil {
		return ZeroHash, false, fmt.Errorf("read packed-refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		hex, ref, ok := strings.Cut(sc.Text(), " ")
		if ok && ref == name {
			h, err := ParseHash(hex)
			return h, err == nil, err
		}
	}
	return ZeroHash, false, nil
}

// HeadBranch returns the full name of the branch HEAD points to ("refs/heads/main"), or ""
// when HEAD is detached.
func (r *Repo) HeadBranch() string {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !ok {
		return ""
	}
	return target
}
