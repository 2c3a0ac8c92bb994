package hooks

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/hooks/agents/claude"
)

// SlashArgsEnd is the line Claude Code's /git-loop command writes after the arguments it
// passes to `git-loop start --slash-args=-`: without it, the arguments were cut short.
const SlashArgsEnd = claude.SlashArgsEnd

// ErrSlashArgs marks /git-loop arguments that cannot be read: an unterminated quote, an
// unknown option, an option without its value. Nothing is started.
var ErrSlashArgs = errors.New("cannot read the /git-loop arguments")

// SlashArgs are the /git-loop command's arguments, read by ParseSlashArgs.
type SlashArgs struct {
	// Prompt is the words that are not options, joined by the white space that separated
	// them in the text (one space where an option stood between them).
	Prompt string
	// Flags are the options, in order, each as --NAME=VALUE or, for a switch, --NAME, ready
	// for a flag parser.
	Flags []string
	// Help: -h or --help was given; nothing else is read.
	Help bool
}

// ParseSlashArgs reads the text a person typed after /git-loop, which Claude Code passes as
// it is, the way the ralph-loop plugin's setup script reads its shell words, but without a
// shell: words are split by splitSlashWords; "--NAME VALUE", "--NAME=VALUE" and "-L VALUE"
// are options, --NAME and -L alone are switches, and every other word is part of the task
// ("--" ends the options: the words after it are the task). options maps each known name
// (without dashes, a letter for -L) to whether it takes a value; an unknown --NAME is an
// error, so that a mistyped option does not slip into the task.
func ParseSlashArgs(text string, options map[string]bool) (SlashArgs, error) {
	words, err := splitSlashWords(text)
	if err != nil {
		return SlashArgs{}, err
	}
	var args SlashArgs
	var prompt strings.Builder
	last := -1 // index of the last word added to the prompt
	optionsEnd := false
	for i := 0; i < len(words); i++ {
		w := words[i].text
		name, inline, hasValue, isOption := optionWord(w)
		short := isOption && !strings.HasPrefix(w, "--")
		switch {
		case !optionsEnd && w == "--":
			optionsEnd = true
			continue
		case optionsEnd || !isOption || (short && !known(options, name)):
			// a task word; so is -5 or -x, which no option spells
			if last >= 0 {
				if last == i-1 {
					prompt.WriteString(text[words[last].end:words[i].start])
				} else {
					prompt.WriteByte(' ')
				}
			}
			prompt.WriteString(w)
			last = i
			continue
		}
		if name == "help" || name == "h" {
			return SlashArgs{Help: true}, nil
		}
		takesValue, ok := options[name]
		switch {
		case !ok:
			return SlashArgs{}, fmt.Errorf("%w: unknown option --%s; the options are %s (a task word that starts with -- goes after a lone --, which ends the options)", ErrSlashArgs, name, optionList(options))
		case hasValue:
			args.Flags = append(args.Flags, "--"+name+"="+inline)
		case !takesValue:
			args.Flags = append(args.Flags, "--"+name)
		case i+1 == len(words):
			return SlashArgs{}, fmt.Errorf("%w: %s needs a value after it (in quotes when it has spaces)", ErrSlashArgs, w)
		default:
			i++
			args.Flags = append(args.Flags, "--"+name+"="+words[i].text)
		}
	}
	args.Prompt = prompt.String()
	return args, nil
}

// optionWord reads a word that names an option: --NAME or --NAME=VALUE (NAME a letter, then
// letters, digits and dashes), or -L (one letter).
func optionWord(w string) (name, value string, hasValue, ok bool) {
	if len(w) == 2 && w[0] == '-' && isLetter(w[1]) {
		return w[1:], "", false, true
	}
	rest, dashed := strings.CutPrefix(w, "--")
	if !dashed || rest == "" || !isLetter(rest[0]) {
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(rest, "=")
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && (c < '0' || c > '9') && c != '-' {
			return "", "", false, false
		}
	}
	return name, value, hasValue, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func known(options map[string]bool, name string) bool {
	_, ok := options[name]
	return ok || name == "h"
}

// optionList spells the known options for an error: --max-iterations, -p…
func optionList(options map[string]bool) string {
	names := make([]string, 0, len(options))
	for n := range options {
		if len(n) == 1 {
			names = append(names, "-"+n)
		} else {
			names = append(names, "--"+n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// slashWord is one word of the arguments: its text, and the span it came from.
type slashWord struct {
	text       string
	start, end int // byte offsets in the argument text
}

// splitSlashWords splits the /git-loop argument text into words, as a shell would for the
// forms people type, but kind to prose, where apostrophes are common:
//
//   - words are separated by white space (space, tab, line breaks);
//   - a quote, ' or ", opens a quoted part only at the start of a word or right after an
//     "=" (--promise="ALL DONE", --gate test='go test ./...'), and that part ends at the
//     same quote followed by white space or the end of the text, which also ends the word;
//     so "it's done" inside quotes, or Bob's outside them, is plain text;
//   - inside "…", \" and \\ are a quote and a backslash; inside '…' nothing is special;
//   - outside quotes, a backslash before white space, a quote or a backslash makes it part
//     of the word (\  \" \' \\), a backslash before a line break joins the lines (both go),
//     and any other backslash is itself (C:\Users stays as it is).
//
// A quote that opens and is never closed is an error naming where it opens: the text is
// not guessed at.
func splitSlashWords(text string) ([]slashWord, error) {
	var words []slashWord
	i := 0
	for {
		for i < len(text) && isSlashSpace(text[i]) {
			i++
		}
		if i == len(text) {
			return words, nil
		}
		start := i
		var b strings.Builder
		quotable, quoted := true, false
	word:
		for i < len(text) && !isSlashSpace(text[i]) {
			c := text[i]
			switch {
			case quotable && (c == '\'' || c == '"'):
				end, val, ok := readQuoted(text, i)
				if !ok {
					return nil, unterminated(text, i)
				}
				b.WriteString(val)
				i, quoted = end, true
				break word // the closing quote is followed by white space or the end
			case c == '\\' && strings.HasPrefix(text[i+1:], "\n"):
				i += 2
			case c == '\\' && strings.HasPrefix(text[i+1:], "\r\n"):
				i += 3
			case c == '\\' && i+1 < len(text) && strings.IndexByte(" \t'\"\\", text[i+1]) >= 0:
				b.WriteByte(text[i+1])
				i += 2
				quotable = false
			default:
				b.WriteByte(c)
				i++
				quotable = c == '='
			}
		}
		if b.Len() > 0 || quoted { // "" is an empty word; a lone line continuation is none
			words = append(words, slashWord{b.String(), start, i})
		}
	}
}

// readQuoted reads the quoted part opening at text[open]: the index just past its closing
// quote, and its text.
func readQuoted(text string, open int) (end int, val string, ok bool) {
	q := text[open]
	var b strings.Builder
	for j := open + 1; j < len(text); j++ {
		c := text[j]
		switch {
		case q == '"' && c == '\\' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\\'):
			b.WriteByte(text[j+1])
			j++
		case c == q && (j+1 == len(text) || isSlashSpace(text[j+1])):
			return j + 1, b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", false
}

// unterminated is the error for a quote opened at text[at] and never closed.
func unterminated(text string, at int) error {
	q := text[at]
	shown := []rune(text[at:])
	if len(shown) > 24 {
		shown = append(shown[:24], '…')
	}
	return fmt.Errorf("%w: the %c quote that opens %q is never closed; end the quoted text with %c followed by a space or the end, or write a quote that opens nothing as \\%c",
		ErrSlashArgs, q, string(shown), q, q)
}

func isSlashSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
