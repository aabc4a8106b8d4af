package analyze

import (
	"errors"
	"fmt"
	"math"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
)

// Bounds on an Argo condition (docs/limits.md): its text and nesting are
// checked before expr compiles it (expr's parser recurses once per
// parenthesis), its steps and the size of what it builds while it runs. A
// condition past one is an Error measurement, as Argo records an
// evaluation error, never a crash.
const (
	argoCondMaxBytes   = 4096
	argoCondMaxNesting = 64
	argoCondMaxSteps   = 1_000_000 // closure bodies run (all, map, reduce, …)
	argoCondMaxSize    = 1 << 20   // bytes of text and elements handed to functions or built by + and repeat
)

// argoCondition is Argo's EvalCondition: the same expr library, the same
// environment, within the bounds above.
func argoCondition(result any, condition string) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation logic panicked: %v", r)
		}
	}()
	if err := argoCondShape(condition); err != nil {
		return false, err
	}
	isNil := func(any) bool { return result == nil }
	env := map[string]any{
		"result": result, "asInt": argoAsInt, "asFloat": argoAsFloat,
		"isNaN": math.IsNaN, "isInf": func(f float64) bool { return math.IsInf(f, 0) },
		"isNil": isNil, "default": func(_, d any) any {
			if result == nil {
				return d
			}
			return result
		},
	}
	b := &argoBudget{}
	program, err := expr.Compile(condition, append(b.options(), expr.Env(env))...)
	if err != nil {
		return false, exprMessage(err)
	}
	out, err := expr.Run(program, env)
	if err != nil {
		return false, exprMessage(err)
	}
	v, isBool := out.(bool)
	if !isBool {
		return false, fmt.Errorf("expected bool, but got %T", out)
	}
	return v, nil
}

// argoCondShape checks a condition's length and bracket nesting (outside
// string literals) before it reaches the parser.
func argoCondShape(c string) error {
	if len(c) > argoCondMaxBytes {
		return fmt.Errorf("condition longer than %d bytes (%d)", argoCondMaxBytes, len(c))
	}
	depth := 0
	var quote byte
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case quote != 0 && ch == '\\':
			i++
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'' || ch == '`':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			if depth++; depth > argoCondMaxNesting {
				return fmt.Errorf("condition nested deeper than %d brackets", argoCondMaxNesting)
			}
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		}
	}
	return nil
}

// exprMessage keeps an expr error's message without its source excerpt,
// as Argo unwraps file.Error.
func exprMessage(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		return errors.New(fe.Message)
	}
	return err
}
