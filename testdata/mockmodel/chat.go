package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Chat Completions protocol (Qwen Code, Factory Droid's generic chat-completion
// provider, OpenCode's @ai-sdk/openai-compatible provider).

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"` // a string, or text (and other) parts
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) chat(w http.ResponseWriter, body []byte, rec *Request) {
	var in chatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "mockmodel: bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var shellName string
	var shellSchema map[string]any
	for _, t := range in.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
		if shellName == "" && contains(shellTools, t.Function.Name) {
			shellName, shellSchema = t.Function.Name, t.Function.Parameters
		}
	}
	var history []entry
	background := false
	for i, m := range in.Messages {
		switch m.Role {
		case "system":
			for _, b := range anthropicBlocks(m.Content) {
				background = background || (i == 0 && sideSystem(b.Text))
			}
		case "assistant":
			history = append(history, entry{model: true})
		case "tool", "function":
			history = append(history, entry{tool: true})
		case "user":
			// Like Anthropic's, a user message's text parts may be the agent's own notes.
			var texts []string
			for _, b := range anthropicBlocks(m.Content) {
				if b.Type == "text" && !agentNote(b.Text) {
					texts = append(texts, b.Text)
				}
			}
			if len(texts) > 0 {
				history = append(history, entry{text: strings.Join(texts, "\n")})
			}
		}
	}
	c := summarize(history)
	rec.LastUser = c.lastUser
	var schema map[string]any
	if f := in.ResponseFormat; f != nil && f.Type == "json_schema" && f.JSONSchema != nil {
		schema = f.JSONSchema.Schema
	}

	var text string
	var call *toolCall
	switch {
	case shellName != "" && in.ResponseFormat == nil && !background:
		st := s.turn(c, rec)
		text, call = st.Text, st.call(shellName, shellSchema)
	case schema != nil:
		rec.Kind = "side"
		text = jsonString(fillSchema(schema, 0))
	case in.ResponseFormat != nil && in.ResponseFormat.Type == "json_object":
		rec.Kind = "side"
		text = "{}"
	default:
		rec.Kind = "side"
		text = sideAnswer
	}
	var calls []map[string]any
	finish := "stop"
	if call != nil {
		calls = append(calls, map[string]any{"id": s.nextID("call"), "type": "function",
			"function": map[string]any{"name": call.name, "arguments": jsonString(call.args)}})
		finish = "tool_calls"
	}

	id := s.nextID("chatcmpl")
	created := time.Now().Unix()
	in0 := approxTokens(body)
	usage := map[string]any{"prompt_tokens": in0, "completion_tokens": 10, "total_tokens": in0 + 10,
		"prompt_tokens_details": map[string]int{"cached_tokens": 0}}
	if !in.Stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if calls != nil {
			msg["tool_calls"] = calls
			if text == "" {
				msg["content"] = nil
			}
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := startSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": in.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if text != "" {
		for _, piece := range chunks(text, 2) {
			e.event("", chunk(map[string]any{"content": piece}, nil))
		}
	}
	for i, c := range calls {
		f := c["function"].(map[string]any)
		e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c["id"], "type": "function",
			"function": map[string]any{"name": f["name"], "arguments": ""}}}}, nil))
		for _, piece := range chunks(f["arguments"].(string), 2) {
			e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": piece}}}}, nil))
		}
	}
	last := chunk(map[string]any{}, finish)
	if in.StreamOptions != nil && in.StreamOptions.IncludeUsage {
		// As OpenAI does when asked: a last chunk with no choice carries the usage.
		e.event("", last)
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": in.Model,
			"choices": []any{}, "usage": usage})
	} else {
		last["usage"] = usage
		e.event("", last)
	}
	e.done()
}
