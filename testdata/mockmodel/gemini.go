package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API (Gemini CLI): generateContent and streamGenerateContent (alt=sse).

type geminiRequest struct {
	Contents []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string         `json:"name"`
			Parameters           map[string]any `json:"parameters"`
			ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseSchema     map[string]any `json:"responseSchema"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseMimeType   string         `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (s *Server) gemini(w http.ResponseWriter, body []byte, rec *Request, stream bool) {
	var in geminiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "mockmodel: bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var shellName string
	var shellSchema map[string]any
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			rec.Tools = append(rec.Tools, f.Name)
			if shellName == "" && contains(shellTools, f.Name) {
				shellName, shellSchema = f.Name, f.Parameters
				if shellSchema == nil {
					shellSchema = f.ParametersJSONSchema
				}
			}
		}
	}
	var history []entry
	for _, content := range in.Contents {
		if content.Role == "model" {
			history = append(history, entry{model: true})
			continue
		}
		var texts []string
		tool := false
		for _, p := range content.Parts {
			if t, ok := p["text"].(string); ok {
				texts = append(texts, t)
			}
			if _, ok := p["functionResponse"]; ok {
				tool = true
			}
		}
		if tool {
			history = append(history, entry{tool: true})
		}
		if len(texts) > 0 {
			history = append(history, entry{text: strings.Join(texts, "\n")})
		}
	}
	c := summarize(history)
	rec.LastUser = c.lastUser
	schema := in.GenerationConfig.ResponseJSONSchema
	if schema == nil {
		schema = in.GenerationConfig.ResponseSchema
	}

	var parts []map[string]any
	switch {
	case shellName != "" && schema == nil:
		st := s.turn(c, rec)
		c := st.call(shellName, shellSchema)
		if st.Text != "" || c == nil {
			parts = append(parts, map[string]any{"text": st.Text})
		}
		if c != nil {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.name, "args": c.args}})
		}
	case schema != nil:
		rec.Kind = "side"
		parts = append(parts, map[string]any{"text": jsonString(fillSchema(schema, 0))})
	default:
		rec.Kind = "side"
		parts = append(parts, map[string]any{"text": sideAnswer})
	}

	usage := map[string]int{"promptTokenCount": approxTokens(body), "candidatesTokenCount": 10, "totalTokenCount": approxTokens(body) + 10}
	response := func(parts []map[string]any, final bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		r := map[string]any{"candidates": []any{cand}, "modelVersion": "mock"}
		if final {
			cand["finishReason"] = "STOP"
			r["usageMetadata"] = usage
		}
		return r
	}
	if !stream {
		writeJSON(w, response(parts, true))
		return
	}
	e := startSSE(w)
	for i, p := range parts {
		e.event("", response([]map[string]any{p}, i == len(parts)-1))
	}
}
