package manpage

import (
	"fmt"
	"strings"
)

// Doc is what a manual page says. Prose (paragraphs, summaries, option and item texts) may
// mark `code` with backquotes, which is set in bold; examples are kept as they are.
type Doc struct {
	Name        string // the page's name: git-loop
	Section     int    // the manual section: 1
	Source      string // the footer's source: git-loop
	Manual      string // the header's manual: Git Manual
	Purpose     string // the NAME line's text after the dash
	Synopsis    []string
	Description []string // paragraphs
	Groups      []Group  // the COMMANDS section
	Sections    []Section
}

// Group is a titled group of commands.
type Group struct {
	Title    string
	Commands []Command
}

// Command is one command's entry.
type Command struct {
	Name        string // as typed: git loop start
	Args        string // after the name: [options] [NAME]
	Summary     string
	Description []string // paragraphs
	Options     []Option
	Examples    string // command lines, one a line
}

// Option is one command-line option.
type Option struct {
	Names       []string // as typed: -p, --prompt
	Placeholder string   // its value's, or "" for a switch
	Usage       string
}

// Section is a section after COMMANDS: paragraphs, then tagged items.
type Section struct {
	Title      string
	Paragraphs []string
	Items      []Item
}

// Item is a tagged paragraph: an exit code and its meaning, say.
type Item struct {
	Tag, Text string
}

// Render writes d as a roff man page (the man macros), the same bytes for the same Doc: it
// has no date, so regenerating it changes nothing unless the Doc did.
func Render(d Doc) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %d \"\" %s %s\n", quoteArg(strings.ToUpper(d.Name)), d.Section, quoteArg(d.Source), quoteArg(d.Manual))
	b.WriteString(".ad l\n.nh\n") // ragged right and no hyphenation, as option names must stay whole
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", escape(d.Name), escape(d.Purpose))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, line := range d.Synopsis {
		b.WriteString(lineStart(escape(line)) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	writeParagraphs(&b, d.Description, false)
	if len(d.Groups) > 0 {
		b.WriteString(".SH COMMANDS\n")
	}
	for _, g := range d.Groups {
		fmt.Fprintf(&b, ".SS %s\n", quoteArg(g.Title))
		for _, c := range g.Commands {
			writeCommand(&b, c)
		}
	}
	for _, s := range d.Sections {
		fmt.Fprintf(&b, ".SH %s\n", quoteArg(strings.ToUpper(s.Title)))
		writeParagraphs(&b, s.Paragraphs, false)
		for _, it := range s.Items {
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", lineStart(prose(it.Tag)), lineStart(prose(it.Text)))
		}
	}
	return []byte(b.String())
}

// writeCommand is one command: its synopsis as a tag, then, indented, what it does, its
// description, options and examples.
func writeCommand(b *strings.Builder, c Command) {
	fmt.Fprintf(b, ".PP\n\\fB%s\\fR", escape(c.Name))
	if c.Args != "" {
		b.WriteString(" " + escape(c.Args))
	}
	b.WriteString("\n.RS 4\n")
	writeParagraphs(b, append([]string{c.Summary}, c.Description...), true)
	if len(c.Options) > 0 {
		b.WriteString(".PP\nOptions:\n")
		for _, o := range c.Options {
			names := make([]string, len(o.Names))
			for i, n := range o.Names {
				names[i] = "\\fB" + escape(n) + "\\fR"
			}
			tag := strings.Join(names, ", ")
			if o.Placeholder != "" {
				tag += " \\fI" + escape(o.Placeholder) + "\\fR"
			}
			fmt.Fprintf(b, ".TP\n%s\n%s\n", tag, lineStart(prose(o.Usage)))
		}
	}
	if ex := strings.TrimSpace(c.Examples); ex != "" {
		b.WriteString(".PP\nExamples:\n.PP\n.RS 4\n.nf\n")
		for _, line := range strings.Split(ex, "\n") {
			b.WriteString(lineStart(escape(line)) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
	b.WriteString(".RE\n")
}

// writeParagraphs writes each paragraph as one input line of filled text; the first needs
// no .PP when it opens an indented block (first is true).
func writeParagraphs(b *strings.Builder, paras []string, first bool) {
	for i, p := range paras {
		if i > 0 || !first {
			b.WriteString(".PP\n")
		}
		b.WriteString(lineStart(prose(p)) + "\n")
	}
}

// prose escapes text and sets its `code` spans in bold.
func prose(text string) string {
	parts := strings.Split(text, "`")
	if len(parts)%2 == 0 { // an unpaired backquote: keep it as a character
		return escape(text)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("\\fB" + escape(p) + "\\fR")
		} else {
			b.WriteString(escape(p))
		}
	}
	return b.String()
}

// escape makes text literal for roff: backslashes, minus signs (so options and commands copy
// as typed, not as hyphens), and quotes that groff would curl.
var escape = strings.NewReplacer(`\`, `\e`, "-", `\-`, "'", `\(aq`, "`", `\(ga`).Replace

// lineStart guards an input line that would otherwise start with a control character.
func lineStart(line string) string {
	if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
		return `\&` + line
	}
	return line
}

// quoteArg is a macro argument: escaped and in double quotes (a quote inside becomes \(dq).
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}
