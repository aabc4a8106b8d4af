package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// yamlDocs decodes every document of a YAML stream into nodes; a syntax
// error names the file and, where the YAML library gives one, the line.
func yamlDocs(file string, data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, yamlError(file, err)
		}
		docs = append(docs, &n)
	}
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError rewrites the library's "yaml: line N: msg" as "file:N: msg",
// and its type errors in the file's words, not Go's.
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(yamlTypeText(te.Errors[0]))
	}
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s:%s: %s", file, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
}

// decodeAt decodes a node, its errors at their line.
func decodeAt(file string, n *yaml.Node, v any) error {
	if err := n.Decode(v); err != nil {
		return yamlError(file, err)
	}
	return nil
}

// decodePath is decodeAt for a node at path (metrics[0]), which its errors
// name: "file:12: metrics[0]: want a mapping, got a list".
func decodePath(file string, n *yaml.Node, path string, v any) error {
	err := decodeAt(file, n, v)
	if err == nil {
		return nil
	}
	if m := fileLineRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s%s: %s", m[1], path, m[2])
	}
	return err
}

var fileLineRE = regexp.MustCompile(`^(.*?:\d+: )(.*)$`)

var yamlTypeRE = regexp.MustCompile("^(line \\d+: )?cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")

// yamlTypeText says a type error as the file's reader sees it: what was
// wanted and what was found, without Go's type names.
func yamlTypeText(msg string) string {
	m := yamlTypeRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got := map[string]string{"seq": "a list", "map": "a mapping", "str": "the text %q", "int": "the number %s",
		"float": "the number %s", "bool": "%s", "null": "nothing"}[m[2]]
	if got == "" {
		got = m[2]
	}
	if strings.Contains(got, "%") {
		got = fmt.Sprintf(got, m[3])
	}
	want := "a mapping"
	switch t := m[4]; {
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	case t == "string":
		want = "text"
	case t == "bool":
		want = "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		want = "a number"
	}
	return m[1] + "want " + want + ", got " + got
}

// kindOf is a document's top-level kind, "" when it has none.
func kindOf(doc *yaml.Node) string {
	var head struct {
		Kind string `yaml:"kind"`
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return ""
	}
	_ = doc.Content[0].Decode(&head)
	return head.Kind
}

// lineErr is an error at a node's line.
func lineErr(file string, n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %w", file, n.Line, fmt.Errorf(format, a...))
}

// intOrString is Kubernetes' IntOrString as Argo reads it: a number, or a
// string holding one (IntValue of a non-number string is 0).
type intOrString struct {
	set bool
	n   int
}

func (v *intOrString) UnmarshalYAML(n *yaml.Node) error {
	v.set = true
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number", n.Line)
	}
	i, err := strconv.Atoi(n.Value)
	if err != nil && n.Tag == "!!int" {
		return fmt.Errorf("line %d: %q is not an integer", n.Line, n.Value)
	}
	v.n = i
	return nil
}

// parseDur reads a Go duration (Argo's and Flagger's time.ParseDuration).
func parseDur(file string, n *yaml.Node, field, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, lineErr(file, n, "field %q: %q is not a duration such as 30s or 5m", field, s)
	}
	return d, nil
}

// exactNumber reads a YAML number as the exact rational it spells.
func exactNumber(s string) (*big.Rat, bool) {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// numberNode is a YAML number kept as written, so a threshold is exact.
type numberNode struct {
	set  bool
	text string
	line int
}

func (v *numberNode) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number", n.Line)
	}
	if _, ok := exactNumber(n.Value); !ok {
		return fmt.Errorf("line %d: %q is not a number", n.Line, n.Value)
	}
	v.set, v.text, v.line = true, n.Value, n.Line
	return nil
}

func (v numberNode) rat() *big.Rat {
	r, _ := exactNumber(v.text)
	return r
}
