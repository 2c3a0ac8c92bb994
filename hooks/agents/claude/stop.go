package claude

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// onStop answers Claude Code's Stop hook (and, with subagent set, SubagentStop, where the
// loop never advances). It always exits 0: continuing is a JSON "block" answer, and any
// failure of git-loop itself lets the agent stop (kit.RunStop).
func onStop(ctx context.Context, h kit.Hook, io kit.Streams, subagent bool) int {
	in, err := readStopInput(io.Stdin)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, err)
		return 0
	}
	if subagent {
		return 0
	}
	if in.subagent() { // a SubagentStop payload sent to `hook claude stop`: not the main agent's stop
		return 0
	}
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: in.SessionID, ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"),
		ThisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return thisTurn(in, prev, io.Stderr)
		},
		CountTokens: transcriptCounter(in.TranscriptPath, in.LastAssistantMessage), ReadCommands: commandReader(in.TranscriptPath),
		CapOf: func() loop.BlockCap { return blockCap(in) }}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// answers: {"decision":"block"} to continue; {"systemMessage"} to tell the person.
var answers = kit.Answers{
	KeepGoing: func(w io.Writer, v loop.Verdict) { writeBlock(w, v.ForAgent, v.ForUser) },
	LetStop:   kit.LetStopTellingThePerson,
}

// answerWait bounds how long a stop waits for the agent's transcript to hold the answer that
// ended the turn (Claude Code writes it about a second after the hook starts, and at a new
// session's first stop creates the transcript then). A variable only so that tests set the
// wait they need instead of racing a clock.
var answerWait = 2 * time.Second

// awaitAnswer waits, at most answerWait, until the transcript at path holds answer as its
// last assistant text, so that the token budget counts the answer that ended the turn.
func awaitAnswer(path string, answer *string) {
	if answer != nil {
		sessionlog.AwaitText(path, *answer, turnLine, answerWait)
	}
}

// transcriptCounter counts the transcript's tokens from where the previous stop left off
// (from the start when the transcript changed, e.g. a new session), once the transcript
// holds the turn's answer, when the payload gave one (see awaitAnswer).
func transcriptCounter(path string, answer *string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		awaitAnswer(path, answer)
		mark := loop.TranscriptMark{Path: path}
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier transcripts of this loop still count
			if prev.Path == path {
				mark.Offset, mark.LastID = prev.Offset, prev.LastID
			}
		}
		u, next, last, err := UsageFrom(path, mark.Offset, mark.LastID)
		if err != nil {
			return nil, err
		}
		mark.Tokens += u.Total()
		mark.Offset, mark.LastID = next, last
		return &mark, nil
	}
}

// commandReader reads the agent's shell commands from where the previous stop left off (from
// the start of a transcript the loop has not read before).
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, CommandsFrom)
}

// blockCapEnv is the variable that sets Claude Code's cap on blocks in a row between
// which no tool runs; a hook inherits Claude Code's environment, so it sees the value the
// session runs with (settings' env included).
const blockCapEnv = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"

// defaultBlockCap is Claude Code's cap when nothing changes it.
const defaultBlockCap = 8

// blockCap is Claude Code's cap as this stop sees it: the limit, whether the stop follows a
// block, and whether a tool ran in the turn (from the transcript).
func blockCap(in stopInput) loop.BlockCap {
	c := loop.BlockCap{Limit: defaultBlockCap, Agent: "Claude Code", Continued: in.StopHookActive,
		How: blockCapEnv + " in the env of .claude/settings.json raises it"}
	if n, err := strconv.Atoi(os.Getenv(blockCapEnv)); err == nil && n > 0 {
		c.Limit = n
	}
	if in.StopHookActive && in.TranscriptPath != "" {
		if ran, err := TurnRanTool(in.TranscriptPath); err == nil {
			c.Acted = &ran
		}
	}
	return c
}

// thisTurn is what Claude Code's agent said this turn: the payload's
// last_assistant_message, else (absent, as after an empty final answer, or empty) the text of
// the transcript's last turn, which ends at the last prompt or stop hook feedback, unless
// that is the entry the last judged stop read already. No text is "no message this turn":
// an earlier, judged answer never counts again.
func thisTurn(in stopInput, prev *loop.JudgedMessage, stderr io.Writer) (string, bool, *loop.JudgedMessage) {
	if in.LastAssistantMessage != nil && strings.TrimSpace(*in.LastAssistantMessage) != "" {
		return *in.LastAssistantMessage, true, prev
	}
	if in.TranscriptPath == "" {
		return "", true, prev
	}
	msg, id, err := ThisTurnText(in.TranscriptPath)
	return kit.TurnFromLog(msg, id, err, prev, stderr)
}

// onSessionStart answers SessionStart (startup, resume, compact) with context about the
// loop active here, so a fresh or compacted session knows what it is working toward.
func onSessionStart(h kit.Hook, io kit.Streams) int {
	in, err := readSessionStartInput(io.Stdin)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v\n", h, err)
		return 0
	}
	store, name, err := kit.ActiveLoop(in.Cwd)
	if err != nil || store == nil {
		return 0
	}
	text, err := store.Briefing(name, in.SessionID)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v\n", h, err)
		return 0
	}
	writeSessionContext(io.Stdout, text)
	return 0
}
