package qwen

import (
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/loop"
)

// Qwen Code (0.24) counts a prompt's Stop hook blocks in a row, tool runs between them
// included, and at the block that reaches its cap (stopHookBlockingCap, 8 unless set) it
// overrides the hook and ends the turn ("Stop hook blocked continuation 8 consecutive times;
// overriding and ending the turn."): it honours one block fewer than the cap. The count and
// stop_hook_active are one record, both restarting when a stop is let through, at a new
// prompt (a resumed session's included) and when the cap is reached.

// blockCapEnv is the variable that sets Qwen Code's cap, over its settings; a hook inherits
// Qwen Code's environment, so it sees the value the session runs with.
const blockCapEnv = "QWEN_CODE_STOP_HOOK_BLOCK_CAP"

const (
	defaultBlockCap = 8
	maxBlockCap     = 100
)

// blockCap is Qwen Code's cap as this stop sees it: the blocks it honours in a row, and
// whether this stop follows a block (stop_hook_active). Tool runs do not restart its count.
// A cap of 1 honours no block at all, which loop.BlockCap cannot say: it is taken as no cap.
func blockCap(stopHookActive bool, cwd string) loop.BlockCap {
	home, _ := os.UserHomeDir()
	acted := false
	return loop.BlockCap{Limit: configuredCap(cwd, home) - 1, Agent: "Qwen Code", Continued: stopHookActive, Acted: &acted,
		How: blockCapEnv + " or stopHookBlockingCap in .qwen/settings.json raises it, to 100 at most"}
}

// configuredCap is Qwen Code's cap: QWEN_CODE_STOP_HOOK_BLOCK_CAP when set (an integer, else
// the default), else stopHookBlockingCap from the settings (system, project, user, system
// defaults, the first that sets it), else 8; a cap is taken down to a whole number, below 1
// is the default, above 100 is 100.
func configuredCap(cwd, home string) int {
	if v := strings.TrimSpace(os.Getenv(blockCapEnv)); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n != math.Trunc(n) {
			return defaultBlockCap
		}
		return normalizeCap(n)
	}
	files := []string{systemFile()}
	if cwd != "" {
		files = append(files, projectFile(cwd))
	}
	files = append(files, userFile(home), systemDefaultsFile())
	if n := effective(func(s settings) *float64 { return s.StopHookBlockingCap }, files...); n != nil {
		return normalizeCap(*n)
	}
	return defaultBlockCap
}

func normalizeCap(n float64) int {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return defaultBlockCap
	}
	n = math.Floor(n)
	if n < 1 {
		return defaultBlockCap
	}
	return int(min(n, maxBlockCap))
}
