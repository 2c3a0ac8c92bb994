package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Responses protocol (Codex CLI).

type openaiRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Input  []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"input"`
	Tools []struct {
		Type       string         `json:"type"`
		Name       string         `json:"name"`
		Parameters map[string]any `json:"parameters"`
	} `json:"tools"`
	Text *struct {
		Format *struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// openaiModelItem reports whether an input item is the model's own output.
func openaiModelItem(typ, role string) bool {
	switch typ {
	case "message":
		return role == "assistant"
	case "function_call", "local_shell_call", "custom_tool_call", "reasoning":
		return true
	}
	return false
}

func (s *Server) openai(w http.ResponseWriter, body []byte, rec *Request) {
	var in openaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "mockmodel: bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var shellName string
	var shellSchema map[string]any
	for _, t := range in.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		rec.Tools = append(rec.Tools, name)
		if shellName == "" && t.Type == "function" && contains(shellTools, t.Name) {
			shellName, shellSchema = t.Name, t.Parameters
		}
	}
	var history []entry
	for _, it := range in.Input {
		switch {
		case openaiModelItem(it.Type, it.Role):
			history = append(history, entry{model: true})
		case it.Type == "message" && it.Role == "user":
			history = append(history, entry{text: openaiText(it.Content)})
		case strings.HasSuffix(it.Type, "_output"): // function_call_output and the like
			history = append(history, entry{tool: true})
		}
	}
	c := summarize(history)
	rec.LastUser = c.lastUser
	var schema map[string]any
	if in.Text != nil && in.Text.Format != nil && in.Text.Format.Type == "json_schema" {
		schema = in.Text.Format.Schema
	}

	var output []map[string]any
	switch {
	case shellName != "" && schema == nil:
		st := s.turn(c, rec)
		c := st.call(shellName, shellSchema)
		if st.Text != "" || c == nil {
			output = append(output, openaiMessage(s.nextID("msg"), st.Text))
		}
		if c != nil {
			output = append(output, map[string]any{"type": "function_call", "id": s.nextID("fc"), "call_id": s.nextID("call"),
				"name": c.name, "arguments": jsonString(c.args), "status": "completed"})
		}
	case schema != nil:
		rec.Kind = "side"
		output = append(output, openaiMessage(s.nextID("msg"), jsonString(fillSchema(schema, 0))))
	default:
		rec.Kind = "side"
		output = append(output, openaiMessage(s.nextID("msg"), sideAnswer))
	}

	id := s.nextID("resp")
	in0 := approxTokens(body)
	resp := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "model": in.Model,
		"status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": in0, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": in0 + 10}}
	if !in.Stream {
		writeJSON(w, resp)
		return
	}
	e := startSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "sequence_number": 0,
		"response": map[string]any{"id": id, "object": "response", "created_at": resp["created_at"], "model": in.Model, "status": "in_progress", "output": []any{}}})
	seq := 1
	for i, item := range output {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		if item["type"] == "message" {
			added["content"], added["status"] = []any{}, "in_progress"
		}
		e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": seq, "output_index": i, "item": added})
		seq++
		if item["type"] == "message" {
			text := item["content"].([]map[string]any)[0]["text"].(string)
			for _, chunk := range chunks(text, 2) {
				e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": seq,
					"item_id": item["id"], "output_index": i, "content_index": 0, "delta": chunk})
				seq++
			}
		}
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "sequence_number": seq, "output_index": i, "item": item})
		seq++
	}
	e.event("response.completed", map[string]any{"type": "response.completed", "sequence_number": seq, "response": resp})
}

func openaiMessage(id, text string) map[string]any {
	return map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// openaiText is the text of a message item's content: a string or input_text/output_text
// parts.
func openaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
