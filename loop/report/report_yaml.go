package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxYAMLDepth bounds how deeply nested a JSON document jsonToYAML converts.
const maxYAMLDepth = 64

// jsonToYAML converts a JSON document to YAML, keeping the order of object keys (so the
// report reads in its fields' order) and every value's type: a string that looks like a
// number or a boolean stays a string.
//
// A top-level object is converted one key at a time, and an array value one element at a
// time, each encoded on its own: a block mapping's pairs and a block sequence's items are
// independent in YAML, so the text is the same as encoding the whole tree (the tests hold it
// to that), while only one element's nodes are alive at once. The report of a 10,000-
// iteration loop made a tree of hundreds of megabytes.
func jsonToYAML(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b bytes.Buffer
	if err := convertTop(dec, &b); err != nil {
		return nil, fmt.Errorf("convert JSON to YAML: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("convert JSON to YAML: more than one value")
	}
	return b.Bytes(), nil
}

// convertTop writes the document's one value: an object pair by pair, anything else whole.
func convertTop(dec *json.Decoder, b *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') || !dec.More() {
		node, err := yamlValue(dec, tok, 0)
		if err != nil {
			return err
		}
		return encodeYAML(b, node)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		keyNode := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(key)}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if header, ok := sequenceHeader(keyNode); ok && tok == json.Delim('[') && dec.More() {
			// "key:" then each item as the one item of a sequence, indented under the key
			b.WriteString(header)
			for dec.More() {
				item, err := yamlNode(dec, 2)
				if err != nil {
					return err
				}
				// the pair key: [item], without its "key:" line: the item indented by yaml.v3
				// itself (its line breaks include U+2028 and U+2029, not only newlines)
				var pair bytes.Buffer
				seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{item}}
				if err := encodeYAML(&pair, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{keyNode, seq}}); err != nil {
					return err
				}
				rest, ok := bytes.CutPrefix(pair.Bytes(), []byte(header))
				if !ok {
					return fmt.Errorf("key %q: its sequence did not start with %q", keyNode.Value, header)
				}
				b.Write(rest)
			}
			if _, err := dec.Token(); err != nil { // the closing ]
				return err
			}
			continue
		}
		value, err := yamlValue(dec, tok, 1)
		if err != nil {
			return err
		}
		if err := encodeYAML(b, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{keyNode, value}}); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing }
	return err
}

// sequenceHeader is the line "key:" that opens a block sequence under key, when the key is
// plain enough to be written on one line before its value (a long or odd key is written as
// an explicit "? key", and its value is then converted whole).
func sequenceHeader(key *yaml.Node) (string, bool) {
	var b bytes.Buffer
	if encodeYAML(&b, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{key, {Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}}}) != nil {
		return "", false
	}
	line, ok := strings.CutSuffix(b.String(), ": null\n")
	if !ok || strings.Contains(line, "\n") || strings.HasPrefix(line, "? ") {
		return "", false
	}
	return line + ":\n", true
}

// encodeYAML appends node as a YAML document.
func encodeYAML(b *bytes.Buffer, node *yaml.Node) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}

// yamlNode reads the next JSON value from dec as a YAML node.
func yamlNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxYAMLDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return yamlValue(dec, tok, depth)
}

// yamlValue is the YAML node of the JSON value that starts with tok.
func yamlValue(dec *json.Decoder, tok json.Token, depth int) (*yaml.Node, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxYAMLDepth)
	}
	scalar := func(tag, value string) (*yaml.Node, error) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}, nil
	}
	switch v := tok.(type) {
	case json.Delim:
		return yamlCollection(dec, v, depth)
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.Contains(v, "\n") {
			n.Style = yaml.LiteralStyle
		}
		return n, nil
	case json.Number:
		return numberNode(v)
	case bool:
		return scalar("!!bool", fmt.Sprint(v))
	case nil:
		return scalar("!!null", "null")
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// numberNode is a JSON number in YAML: an integer as it is; anything else (a fraction, an
// exponent, an integer beyond 64 bits) as the float64 JSON decoding makes of it, written
// so that YAML reads the same float back.
func numberNode(v json.Number) (*yaml.Node, error) {
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: string(v)}, nil
	}
	f, _ := strconv.ParseFloat(string(v), 64) // valid JSON: at worst out of range, ±Inf
	text := strconv.FormatFloat(f, 'g', -1, 64)
	switch {
	case math.IsInf(f, 1):
		text = ".inf"
	case math.IsInf(f, -1):
		text = "-.inf"
	case !strings.ContainsAny(text, ".e"):
		text += ".0"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: text}, nil
}

// yamlCollection reads the rest of a JSON object or array opened by delim.
func yamlCollection(dec *json.Decoder, delim json.Delim, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if delim == '{' {
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
	}
	for dec.More() {
		if n.Kind == yaml.MappingNode {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(key)})
		}
		v, err := yamlNode(dec, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return nil, err
	}
	return n, nil
}
