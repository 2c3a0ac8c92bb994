package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/gitstore"
)

// Some agents deliver the agent's last response in one hook and the stop in another (Cursor's
// afterAgentResponse, then stop). The response is kept in the worktree's git dir until the
// stop reads it: <gitdir>/loop/messages/<hash of the conversation>, one file per conversation,
// replaced by each response. Only a worktree with an active loop keeps any.

// maxRemembered bounds a remembered response; the iteration record keeps less (maxMessage).
const maxRemembered = 1 << 20

func messagePath(gitDir, conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return filepath.Join(gitDir, "loop", "messages", hex.EncodeToString(sum[:16]))
}

// RememberMessage keeps text as the last response of conversation in the worktree of dir,
// when a loop is active there; otherwise it does nothing. Its end is kept when it is long.
func RememberMessage(dir, conversation, text string) error {
	_, gitDir, err := gitstore.FindGitDir(orWorkingDir(dir))
	if err != nil {
		return nil
	}
	if name, err := readPointer(gitDir); err != nil || name == "" {
		return err
	}
	if len(text) > maxRemembered {
		text = text[len(text)-maxRemembered:]
	}
	if err := gitstore.WriteFileAtomic(messagePath(gitDir, conversation), []byte(text)); err != nil {
		return fmt.Errorf("remember the agent's response: %w", err)
	}
	return nil
}

// RecallMessage returns the response RememberMessage kept for conversation in the worktree
// of dir, and forgets it, so a later stop with no new response never judges an old one
// (an old promise must not complete the loop); ok is false when there is none.
func RecallMessage(dir, conversation string) (text string, ok bool, err error) {
	_, gitDir, ferr := gitstore.FindGitDir(orWorkingDir(dir))
	if ferr != nil {
		return "", false, nil
	}
	data, err := os.ReadFile(messagePath(gitDir, conversation))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the agent's remembered response: %w", err)
	}
	_ = os.Remove(messagePath(gitDir, conversation))
	return string(data), true, nil
}

// orWorkingDir is dir, or the process's directory when dir is "".
func orWorkingDir(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}
