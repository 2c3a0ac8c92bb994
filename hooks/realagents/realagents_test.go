//go:build unix

package realagents_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

// The real-agent suite's scenarios run in each agent's package (hooks/agents/NAME, with
// testdata/realagents' RunScenarios); this package installs the agents and tests the mock
// model they talk to.

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgentsAvailable only installs the agents (or finds them in the cache) and says
// so, one line each: `go test -v` prints why an agent is skipped, which a passing
// `go test ./...` never shows. .ci/run runs it first, with -v.
func TestRealAgentsAvailable(t *testing.T) {
	for _, a := range realagents.Agents {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			realagents.Require(t, a.Name)
		})
	}
}

// The mock model decides each answer by the conversation's history, whatever the protocol:
// side requests take no step, a retry gets the same answer, an answer the agent dropped
// from its history still counts, and a new conversation gets the next script.
func TestMockModelSteps(t *testing.T) {
	const (
		bash    = `"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`
		execCmd = `"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"justification":{"type":"string"}},"required":["cmd"]}}]`
		shell   = `"tools":[{"functionDeclarations":[{"name":"run_shell_command","parameters":{"type":"OBJECT","properties":{"command":{"type":"STRING"}}}}]}]`
		prompt  = `{"role":"user","content":"fix it"}`
		toolUse = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`
		nudge   = `{"role":"user","content":[{"type":"text","text":"[Your previous response had no visible output. Please continue and produce a user-visible response.]"}]}`
		// Chat Completions: Qwen Code's shell tool, Factory Droid's (which requires a summary
		// of 3 to 8 words and a risk level), and their opening messages: Qwen Code's prompt
		// after a reminder in the same message, Droid's after a message of reminders.
		runShell  = `"tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{"type":"object","properties":{"command":{"type":"string"},"is_background":{"type":"boolean"}},"required":["command"]}}}]`
		execute   = `"tools":[{"type":"function","function":{"name":"Execute","parameters":{"type":"object","properties":{"summary":{"type":"string","pattern":"^[A-Z]\\S*(?:\\s+\\S+){2,7}$"},"command":{"type":"string"},"riskLevelReason":{"type":"string"},"riskLevel":{"type":"string","enum":["low","medium","high"]},"timeout":{"type":"number"}},"required":["summary","command","riskLevelReason","riskLevel"]}}}]`
		qwenOpen  = `{"role":"system","content":"You are Qwen Code."},{"role":"user","content":[{"type":"text","text":"<system-reminder>\nThe current date is: today.\n</system-reminder>"},{"type":"text","text":"fifth"}]}`
		droidOpen = `{"role":"system","content":"You are Droid."},{"role":"user","content":[{"type":"text","text":"<system-reminder>\n% ls\na.txt\n</system-reminder>"}]},{"role":"user","content":"sixth"}`
		toolCall  = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run_shell_command","arguments":"{\"command\":\"true\"}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"ok"}]}`
	)
	for _, c := range []struct {
		name, path, body string
		kind             string
		conv, step       int
		answer           string // in the response body
	}{
		{"opening", "/v1/messages", `{"stream":true,` + bash + `,"messages":[` + prompt + `]}`, "main", 0, 0, "All fixed."},
		{"side request", "/v1/messages", `{"messages":[{"role":"user","content":"title?"}]}`, "side", -1, -1, `"text":"OK"`},
		{"after a block", "/v1/messages", `{"stream":true,` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"Stop hook feedback:\nno"}]}`, "main", 0, 1, `"name":"Bash"`},
		{"after the tool", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `]}`, "main", 0, 2, `"content":[]`},
		{"the agent's retry", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `,` + nudge + `]}`, "main", 0, 2, `"content":[]`},
		{"the empty answer dropped, then a block", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolUse + `,` + nudge + `,{"role":"user","content":"Stop hook feedback:\nno promise"}]}`, "main", 0, 3, `"text":"Fixed."`},
		{"past the script", "/v1/messages", `{` + bash + `,"messages":[` + prompt + `,{"role":"assistant","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"},{"role":"user","content":"d"},{"role":"assistant","content":"e"},{"role":"user","content":"f"},{"role":"assistant","content":"g"},{"role":"user","content":"h"}]}`, "main", 0, 4, `"text":"Fixed."`},
		{"a second conversation", "/v1/messages", `{` + bash + `,"messages":[{"role":"user","content":"next prompt"}]}`, "main", 1, 0, `"text":"Second."`},
		{"openai", "/v1/responses", `{"stream":true,` + execCmd + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"third"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All fixed."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"no"}]}]}`, "main", 2, 1, `\"cmd\":\"sed -n p x\"`},
		{"openai schema", "/v1/responses", `{"text":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},"input":[]}`, "side", -1, -1, `{\"title\":\"OK\"}`},
		{"gemini", "/v1beta/models/m:streamGenerateContent", `{` + shell + `,"contents":[{"role":"user","parts":[{"text":"fourth"}]},{"role":"model","parts":[{"text":"All fixed."}]},{"role":"user","parts":[{"text":"no"}]}]}`, "main", 3, 1, `"command":"sed -n p x"`},
		{"chat", "/v1/chat/completions", `{"stream":true,"stream_options":{"include_usage":true},` + runShell + `,"messages":[` + qwenOpen + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":[{"type":"text","text":"MARKER-123"}]}]}`, "main", 4, 1, `{"command":"sed -n p x"}`},
		{"chat after the tool", "/v1/chat/completions", `{"stream":true,` + runShell + `,"messages":[` + qwenOpen + `,{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"},` + toolCall + `]}`, "main", 0, 2, `"finish_reason":"stop"`},
		{"chat, Droid's shell tool", "/v1/chat/completions", `{` + execute + `,"messages":[` + droidOpen + `,{"role":"assistant","content":"Second."},{"role":"user","content":"no"}]}`, "main", 1, 1, `"arguments":"{\"command\":\"sed -n p x\",\"riskLevel\":\"low\",\"riskLevelReason\":\"Run a command for the task\",\"summary\":\"Run a command for the task\"}"`},
		{"chat title", "/v1/chat/completions", `{"stream":true,"messages":[{"role":"system","content":"Generate a title."},{"role":"user","content":"\"Say hello.\""}]}`, "side", -1, -1, "OK"},
		{"chat schema", "/v1/chat/completions", `{"response_format":{"type":"json_schema","json_schema":{"name":"t","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},` + runShell + `,"messages":[{"role":"user","content":"title?"}]}`, "side", -1, -1, `{\"title\":\"OK\"}`},
		{"qwen's memory extraction", "/v1/chat/completions", `{"stream":true,` + runShell + `,"messages":[{"role":"system","content":"You are now acting as the managed memory extraction subagent for an AI coding assistant."},{"role":"user","content":"fifth"},{"role":"assistant","content":"All fixed."},{"role":"user","content":"Managed memory has TWO directories."}]}`, "side", -1, -1, "OK"},
		{"gemini next speaker", "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"who?"}]}],"generationConfig":{"responseJsonSchema":{"type":"OBJECT","properties":{"next_speaker":{"type":"STRING","enum":["model","user"]},"score":{"type":"INTEGER","minimum":1}}}}}`, "side", -1, -1, `next_speaker\":\"user`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := mockmodel.Start(
				mockmodel.Script{{Text: "All fixed."}, {Shell: "sed -n p x"}, {Text: ""}, {Text: "Fixed."}},
				mockmodel.Script{{Text: "Second."}, {Shell: "sed -n p x"}},
			)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if c.conv > 0 { // the conversations before this one, in order
				for i := range c.conv {
					post(t, s.URL+"/v1/messages", `{`+bash+`,"messages":[{"role":"user","content":"conversation `+strconv.Itoa(i)+`"}]}`)
				}
			}
			got := post(t, s.URL+c.path, c.body)
			reqs := s.Requests()
			r := reqs[len(reqs)-1]
			if r.Kind != c.kind || r.Conversation != c.conv || r.Step != c.step {
				t.Errorf("request taken as %s, conversation %d, step %d; want %s, %d, %d", r.Kind, r.Conversation, r.Step, c.kind, c.conv, c.step)
			}
			if !strings.Contains(got, c.answer) && !strings.Contains(streamed(got), c.answer) {
				t.Errorf("answer lacks %s:\n%s", c.answer, got)
			}
		})
	}
}

// streamed joins the pieces of a streamed answer: Anthropic's text and input_json deltas,
// OpenAI's output_text deltas, Chat Completions' content and tool call argument deltas.
func streamed(sse string) string {
	var b strings.Builder
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Delta   json.RawMessage `json:"delta"`
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(data), &ev)
		for _, c := range ev.Choices {
			b.WriteString(c.Delta.Content)
			for _, tc := range c.Delta.ToolCalls {
				b.WriteString(tc.Function.Arguments)
			}
		}
		var text string
		var d struct {
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
		}
		if json.Unmarshal(ev.Delta, &text) != nil && json.Unmarshal(ev.Delta, &d) == nil {
			text = d.Text + d.PartialJSON
		}
		b.WriteString(text)
	}
	return b.String()
}

// post posts a JSON body and returns the answer, failing the test unless it is 200 OK.
func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %v %s: %s", url, err, resp.Status, b)
	}
	return string(b)
}

// The mock's Chat Completions answers are what OpenAI's clients parse: streamed, "data:"
// chunks of chat.completion.chunk ending with "data: [DONE]", the role first, a tool call's
// id and name before its argument pieces, the finish reason, the usage once (in a chunk of
// its own when stream_options asks for it, as OpenAI does, else in the last chunk); whole, one
// chat.completion.
func TestMockModelChatCompletions(t *testing.T) {
	const tools = `"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command","description"]}}}]`
	for _, c := range []struct {
		name, body string
		text, args string // the answer's text, its tool call's arguments
		finish     string
	}{
		{"text, streamed", `{"stream":true,` + tools + `,"messages":[{"role":"user","content":"fix it"}]}`, "All fixed.", "", "stop"},
		{"text, streamed, usage asked", `{"stream":true,"stream_options":{"include_usage":true},` + tools + `,"messages":[{"role":"user","content":"fix it"}]}`, "All fixed.", "", "stop"},
		{"text", `{` + tools + `,"messages":[{"role":"user","content":"fix it"}]}`, "All fixed.", "", "stop"},
		{"tool call, streamed", `{"stream":true,"stream_options":{"include_usage":true},` + tools + `,"messages":[{"role":"user","content":"fix it"},{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"}]}`,
			"", `{"command":"sed -n p x","description":"run a command for the task"}`, "tool_calls"},
		{"tool call", `{` + tools + `,"messages":[{"role":"user","content":"fix it"},{"role":"assistant","content":"All fixed."},{"role":"user","content":"no"}]}`,
			"", `{"command":"sed -n p x","description":"run a command for the task"}`, "tool_calls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := mockmodel.Start(mockmodel.Script{{Text: "All fixed."}, {Shell: "sed -n p x"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got := post(t, s.URL+"/v1/chat/completions", c.body)
			type toolCall struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			}
			type choice struct {
				Delta, Message struct {
					Role      string     `json:"role"`
					Content   *string    `json:"content"`
					ToolCalls []toolCall `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
			type completion struct {
				Object  string   `json:"object"`
				Choices []choice `json:"choices"`
				Usage   *struct {
					Prompt     int `json:"prompt_tokens"`
					Completion int `json:"completion_tokens"`
					Total      int `json:"total_tokens"`
				} `json:"usage"`
			}
			var text, args, name, id, finish string
			usages := 0
			if !strings.Contains(c.body, `"stream":true`) {
				var r completion
				if err := json.Unmarshal([]byte(got), &r); err != nil || r.Object != "chat.completion" || len(r.Choices) != 1 {
					t.Fatalf("not one chat.completion (%v):\n%s", err, got)
				}
				m := r.Choices[0].Message
				if m.Role != "assistant" {
					t.Errorf("role %q", m.Role)
				}
				if m.Content != nil {
					text = *m.Content
				}
				for _, tc := range m.ToolCalls {
					args, name, id = tc.Function.Arguments, tc.Function.Name, tc.ID
				}
				if r.Choices[0].FinishReason != nil {
					finish = *r.Choices[0].FinishReason
				}
				if r.Usage != nil && r.Usage.Prompt > 0 && r.Usage.Total == r.Usage.Prompt+r.Usage.Completion {
					usages++
				}
			} else {
				events := strings.Split(strings.TrimSuffix(got, "\n\n"), "\n\n")
				if events[len(events)-1] != "data: [DONE]" {
					t.Errorf("the stream does not end with data: [DONE]:\n%s", got)
				}
				for i, ev := range events[:len(events)-1] {
					data, ok := strings.CutPrefix(ev, "data: ")
					var r completion
					if !ok || json.Unmarshal([]byte(data), &r) != nil || r.Object != "chat.completion.chunk" {
						t.Fatalf("event %d is not a chat.completion.chunk: %s", i, ev)
					}
					if r.Usage != nil && r.Usage.Prompt > 0 {
						usages++
						if strings.Contains(c.body, "include_usage") != (len(r.Choices) == 0) {
							t.Errorf("usage in %s (asked: %v)", data, strings.Contains(c.body, "include_usage"))
						}
					}
					for _, ch := range r.Choices {
						if i == 0 && ch.Delta.Role != "assistant" {
							t.Errorf("first chunk without the assistant's role: %s", data)
						}
						if ch.Delta.Content != nil {
							text += *ch.Delta.Content
						}
						for _, tc := range ch.Delta.ToolCalls {
							if tc.ID != "" {
								if args != "" || tc.Function.Name == "" || tc.Type != "function" {
									t.Errorf("a tool call's first piece lacks its name or type, or comes late: %s", data)
								}
								id, name = tc.ID, tc.Function.Name
							}
							args += tc.Function.Arguments
						}
						if ch.FinishReason != nil {
							finish = *ch.FinishReason
						}
					}
				}
			}
			if text != c.text || args != c.args || finish != c.finish || usages != 1 {
				t.Errorf("text %q, arguments %s, finish %q, %d usages; want %q, %s, %q, 1:\n%s", text, args, finish, usages, c.text, c.args, c.finish, got)
			}
			if c.args != "" && (name != "bash" || id == "") {
				t.Errorf("tool call %q with id %q, want bash with an id", name, id)
			}
		})
	}
}
