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
// OpenAI's output_text deltas.
func streamed(sse string) string {
	var b strings.Builder
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Delta json.RawMessage `json:"delta"`
		}
		json.Unmarshal([]byte(data), &ev)
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
