// Package mockmodel is a scripted model server for end-to-end tests of real coding agents
// (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, Qwen Code, Factory Droid, OpenCode). It
// listens on 127.0.0.1 and speaks the four wire protocols those agents use:
//
//   - Anthropic Messages: POST /v1/messages (server-sent events when "stream" is true,
//     tool calls as tool_use blocks with input_json_delta) and /v1/messages/count_tokens;
//   - OpenAI Responses: POST /v1/responses (server-sent events: response.created,
//     response.output_item.added/done with a message or a function_call,
//     response.completed with usage);
//   - OpenAI Chat Completions: POST /v1/chat/completions (server-sent "data:" chunks ending
//     with "data: [DONE]" when "stream" is true, tool calls as tool_calls deltas, usage in
//     the last chunk);
//   - Gemini: POST …:generateContent, …:streamGenerateContent?alt=sse and …:countTokens.
//
// A Script is the model's side of one main conversation: one Step per answer. The step a
// request gets is decided by the conversation's own history (how many answers the model
// already gave in it, counting one the agent left out), not by how many requests came, so the agents' side requests (titles,
// summaries, checks with a response schema, requests offering no shell tool, background
// requests known by their system prompt) get a short
// answer of their own and consume no step, and a retried request gets the same answer
// again. A server may hold several scripts, one per conversation in the order the
// conversations begin (a driver starting the agent afresh for each iteration); a
// conversation is known by its opening user messages. Every request is recorded (Requests)
// for assertions and debugging.
package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Step is one answer of the model in the main conversation.
type Step struct {
	// Text is the answer's text. It may be empty: an empty final answer.
	Text string
	// Shell, when set, makes the answer a call of the agent's own shell tool (Claude Code's
	// Bash, Codex's shell or exec_command, Gemini's and Qwen Code's run_shell_command,
	// Copilot's and OpenCode's bash, Factory Droid's Execute) running this command with
	// bash; Text, if any, comes before the call.
	Shell string
	// Tool, when set (and Shell not), makes the answer a call of the tool of that name with
	// Input as its arguments: Claude Code's Agent tool starting a subagent, say.
	Tool  string
	Input map[string]any
}

// call is the tool call a step makes in a request offering shell (the agent's shell tool
// and its parameters' schema), or nil.
func (st Step) call(shellName string, shellSchema map[string]any) *toolCall {
	switch {
	case st.Shell != "" && shellName != "":
		c := shellCall(shellName, shellSchema, st.Shell)
		return &c
	case st.Tool != "":
		return &toolCall{name: st.Tool, args: st.Input}
	}
	return nil
}

// Script is the model's answers in the main conversation, in order. Past its end the last
// step repeats.
type Script []Step

// Request is one request the server received.
type Request struct {
	Seq      int       `json:"seq"`
	Time     time.Time `json:"time"`
	Protocol string    `json:"protocol"` // "anthropic", "openai" (Responses), "chat" (Chat Completions) or "gemini"
	Method   string    `json:"method"`
	Path     string    `json:"path"`
	Query    string    `json:"query,omitempty"`
	// Kind is "main" for a main-conversation turn, "side" for anything else the agent asks
	// (a title, a summary, a schema'd check, a request offering no shell tool, a background
	// request known by its system prompt, as Qwen Code's memory extraction), "count"
	// for token counting, "other" for paths the server does not know.
	Kind string `json:"kind"`
	// Conversation is the index of the main conversation (and so of the Script) a main
	// request belongs to, -1 otherwise.
	Conversation int `json:"conversation"`
	// Step is the index of the Step served to a main request, -1 otherwise.
	Step int `json:"step"`
	// Tools names the tools the request offered.
	Tools []string `json:"tools,omitempty"`
	// LastUser is the text of the last user message of the request's conversation: for a
	// main request after a stop hook blocked, the hook's reason.
	LastUser string `json:"last_user,omitempty"`
	// Body is the request body as received (JSON).
	Body json.RawMessage `json:"body,omitempty"`
}

// Server is a running mock model server.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string

	scripts []Script
	srv     *http.Server

	mu    sync.Mutex
	reqs  []Request
	ids   int
	convs map[string]int // a conversation's opening user messages → its index
}

// Start starts a server on a free port of 127.0.0.1 answering the first main conversation
// with the first script, the second with the second, and so on (past the last, the last
// again). Close stops it.
func Start(scripts ...Script) (*Server, error) {
	if len(scripts) == 0 {
		return nil, fmt.Errorf("mockmodel: no script")
	}
	for i, sc := range scripts {
		if len(sc) == 0 {
			return nil, fmt.Errorf("mockmodel: script %d is empty", i)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mockmodel: listen on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), scripts: scripts, convs: map[string]int{}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MainRequests returns the main-conversation requests received so far, in order.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == "main" {
			out = append(out, r)
		}
	}
	return out
}

// conversation is what a request's history says about its conversation.
type conversation struct {
	opening  []string // the user messages before the model's first answer
	answered int      // how many answers the model gave in it
	lastUser string   // the text of the last user message
}

// entry is one message of a request's history, as the step count sees it: an answer of
// the model, or the user's side (a message's text, or a tool's result).
type entry struct {
	model bool
	tool  bool
	text  string
}

// agentNotes start the text an agent adds to the conversation on its own: Claude Code's
// nudge after an empty answer ("[Your previous response had no visible output. Please
// continue…]", asking for the same answer again) and its reminders. They are not the
// person's or a hook's words, so they are left out of the history the step is counted on.
var agentNotes = []string{"[Your previous response had no visible output", "<system-reminder>"}

// sideSystems start the system prompt of an agent's background requests that carry the
// main conversation's history and offer the shell tool, yet are no turn of it: Qwen Code's
// memory extraction after a turn (it may edit only its memory files).
var sideSystems = []string{"You are now acting as the managed memory extraction subagent"}

func sideSystem(text string) bool {
	for _, p := range sideSystems {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

func agentNote(text string) bool {
	for _, p := range agentNotes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// summarize reads a conversation's history. Consecutive model entries are one answer (an
// OpenAI answer is a message and its calls). An answer the agent left out of its history
// still counts: Claude Code drops an empty answer, so a user message that follows the
// user's own side (a tool's result, another message) means the model answered in between.
func summarize(history []entry) conversation {
	var c conversation
	seenModel, prevModel, prevUser := false, false, false
	for _, en := range history {
		if en.model {
			if !prevModel {
				c.answered++
			}
			seenModel, prevModel, prevUser = true, true, false
			continue
		}
		if !en.tool && en.text != "" {
			c.lastUser = en.text
		}
		switch {
		case !seenModel:
			c.opening = append(c.opening, en.text)
		case !en.tool && prevUser:
			c.answered++
		}
		prevModel, prevUser = false, true
	}
	return c
}

// turn marks rec as a main request and returns the step it gets.
func (s *Server) turn(c conversation, rec *Request) Step {
	s.mu.Lock()
	key := strings.Join(c.opening, "\x00")
	idx, ok := s.convs[key]
	if !ok {
		idx = len(s.convs)
		s.convs[key] = idx
	}
	s.mu.Unlock()
	rec.Kind, rec.Conversation, rec.Step = "main", idx, c.answered
	script := s.scripts[min(idx, len(s.scripts)-1)]
	return script[min(c.answered, len(script)-1)]
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_%04d", prefix, s.ids)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Time: time.Now(), Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Conversation: -1, Step: -1, Kind: "other"}
	if json.Valid(body) {
		rec.Body = body
	}
	defer func() { s.record(rec) }()
	path := req.URL.Path
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		rec.Protocol, rec.Kind = "anthropic", "count"
		writeJSON(w, map[string]int{"input_tokens": approxTokens(body)})
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		rec.Protocol = "anthropic"
		s.anthropic(w, body, &rec)
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		rec.Protocol = "openai"
		s.openai(w, body, &rec)
	case req.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		rec.Protocol = "chat"
		s.chat(w, body, &rec)
	case req.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		rec.Protocol, rec.Kind = "gemini", "count"
		writeJSON(w, map[string]int{"totalTokens": approxTokens(body)})
	case req.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
		rec.Protocol = "gemini"
		s.gemini(w, body, &rec, true)
	case req.Method == http.MethodPost && strings.HasSuffix(path, ":generateContent"):
		rec.Protocol = "gemini"
		s.gemini(w, body, &rec, false)
	default:
		http.Error(w, "mockmodel: no such endpoint", http.StatusNotFound)
	}
}

// shellTools are the shell tools of the agents, by name.
var shellTools = []string{"Bash", "bash", "shell", "exec_command", "shell_command", "run_shell_command", "local_shell", "Execute"}

// toolCall is a call of a tool the request offered: its name and its arguments.
type toolCall struct {
	name string
	args map[string]any
}

// shellCall is a call of the shell tool name, whose parameters have the JSON schema
// schema, running cmd: the command goes into "command" (a string, or an argv array
// ["bash","-lc",cmd] where the schema says array) or "cmd"; a "description" the schema
// requires gets a short text, and so does any other string it requires; any other required
// argument gets what fillSchema makes of its schema. Optional arguments are left out (Codex
// refuses a "justification" without "sandbox_permissions").
func shellCall(name string, schema map[string]any, cmd string) toolCall {
	props, _ := schema["properties"].(map[string]any)
	args := map[string]any{}
	put := func(key string) bool {
		p, ok := props[key].(map[string]any)
		if !ok {
			return false
		}
		if typeOf(p) == "array" {
			args[key] = []string{"bash", "-lc", cmd}
		} else {
			args[key] = cmd
		}
		return true
	}
	if !put("command") && !put("cmd") {
		args["command"] = cmd
	}
	req, _ := schema["required"].([]any)
	for _, k := range req {
		key, _ := k.(string)
		if _, done := args[key]; done || key == "" {
			continue
		}
		p, _ := props[key].(map[string]any)
		switch {
		case key == "description":
			args[key] = "run a command for the task"
		case typeOf(p) == "string" && p["enum"] == nil:
			// Factory Droid's Execute wants a sentence-cased summary of 3 to 8 words and
			// the reason for its risk level.
			args[key] = "Run a command for the task"
		default:
			args[key] = fillSchema(p, 0) // Droid's riskLevel: its first, "low"
		}
	}
	return toolCall{name: name, args: args}
}

func typeOf(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				return strings.ToLower(s)
			}
		}
	}
	return ""
}

// sideAnswer is the text answered to side requests.
const sideAnswer = "OK"

// fillSchema returns a value that satisfies a JSON schema well enough for the agents' own
// checks: objects get their required properties (all of them when none is required),
// enums their first value but "user" when offered (Gemini's next-speaker check then hands
// the turn back to the person instead of running the model again), numbers their minimum
// (Gemini's router wants a complexity of at least 1), strings a word.
func fillSchema(schema map[string]any, depth int) any {
	if depth > 8 {
		return nil
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		for _, v := range enum {
			if v == "user" {
				return v
			}
		}
		return enum[0]
	}
	switch typeOf(schema) {
	case "object":
		props, _ := schema["properties"].(map[string]any)
		out := map[string]any{}
		names := map[string]bool{}
		if req, ok := schema["required"].([]any); ok && len(req) > 0 {
			for _, n := range req {
				if s, ok := n.(string); ok {
					names[s] = true
				}
			}
		} else {
			for n := range props {
				names[n] = true
			}
		}
		for n := range names {
			p, _ := props[n].(map[string]any)
			out[n] = fillSchema(p, depth+1)
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 0
	default:
		return sideAnswer
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; an empty name writes a data-only event (Gemini's).
func (e *sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if e.f != nil {
		e.f.Flush()
	}
}

// done ends an OpenAI Chat Completions stream.
func (e *sse) done() {
	fmt.Fprint(e.w, "data: [DONE]\n\n")
	if e.f != nil {
		e.f.Flush()
	}
}

// approxTokens is a token count good enough for an agent's context bookkeeping.
func approxTokens(body []byte) int { return len(body)/4 + 1 }

// jsonString is the JSON text of v.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
