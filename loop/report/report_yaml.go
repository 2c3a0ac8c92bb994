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
func jsonToYAML(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := yamlNode(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("convert JSON to YAML: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("convert JSON to YAML: more than one value")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return nil, fmt.Errorf("convert JSON to YAML: %w", err)
	}
	enc.Close()
	return b.Bytes(), nil
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
