package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Anthropic Messages protocol (Claude Code; Copilot CLI with
// COPILOT_PROVIDER_TYPE=anthropic).

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
	OutputFormat *struct {
		Schema map[string]any `json:"schema"`
	} `json:"output_format"`
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // tool_result: a string or blocks
}

// blocks reads a message's content: a plain string is one text block.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	json.Unmarshal(raw, &bs)
	return bs
}

func (s *Server) anthropic(w http.ResponseWriter, body []byte, rec *Request) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "mockmodel: bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var shell *toolCall
	for _, t := range in.Tools {
		rec.Tools = append(rec.Tools, t.Name)
		if shell == nil && contains(shellTools, t.Name) {
			c := shellCall(t.Name, t.InputSchema, "")
			shell = &c
		}
	}
	var history []entry
	for _, m := range in.Messages {
		switch m.Role {
		case "assistant":
			history = append(history, entry{model: true})
		case "user":
			var texts []string
			tool := false
			for _, b := range anthropicBlocks(m.Content) {
				switch {
				case b.Type == "tool_result":
					tool = true
				case b.Type == "text" && !agentNote(b.Text):
					texts = append(texts, b.Text)
				}
			}
			if tool {
				history = append(history, entry{tool: true})
			}
			if len(texts) > 0 {
				history = append(history, entry{text: strings.Join(texts, "\n")})
			}
		}
	}
	c := summarize(history)
	rec.LastUser = c.lastUser

	var content []map[string]any
	stopReason := "end_turn"
	switch {
	case shell != nil && in.OutputFormat == nil:
		st := s.turn(c, rec)
		if st.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": st.Text})
		}
		if c := st.call(shell.name, toolSchema(in.Tools, shell.name)); c != nil {
			content = append(content, map[string]any{"type": "tool_use", "id": s.nextID("toolu"), "name": c.name, "input": c.args})
			stopReason = "tool_use"
		}
	case in.OutputFormat != nil:
		rec.Kind = "side"
		content = append(content, map[string]any{"type": "text", "text": jsonString(fillSchema(in.OutputFormat.Schema, 0))})
	default:
		rec.Kind = "side"
		content = append(content, map[string]any{"type": "text", "text": sideAnswer})
	}

	id := s.nextID("msg")
	usage := map[string]int{"input_tokens": approxTokens(body), "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !in.Stream {
		if content == nil {
			content = []map[string]any{}
		}
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": in.Model,
			"content": content, "stop_reason": stopReason, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": in.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": usage["input_tokens"], "output_tokens": 1}}})
	for i, b := range content {
		switch b["type"] {
		case "text":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, chunk := range chunks(b["text"].(string), 2) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": chunk}})
			}
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, chunk := range chunks(jsonString(b["input"]), 2) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": chunk}})
			}
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": usage["output_tokens"]}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func toolSchema(tools []struct {
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"input_schema"`
}, name string) map[string]any {
	for _, t := range tools {
		if t.Name == name {
			return t.InputSchema
		}
	}
	return nil
}

// chunks splits s into about n pieces (at least one, even when s is empty), as a model
// streams its answer.
func chunks(s string, n int) []string {
	if len(s) < 2*n {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		cut := size
		for cut < len(s) && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
