package analyze

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm/runtime"
)

// argoBudget counts one evaluation's steps and the size of what it hands
// to functions. expr bounds its own arrays and ranges (vm.MemoryBudget)
// but not loops, nor strings: repeat allocates before it checks, and a
// reduce that doubles a string, or join over an array that repeats one
// large string, builds gigabytes from a few bytes of condition.
type argoBudget struct{ steps, size int }

var errArgoSteps = fmt.Errorf("evaluation ran more than %d steps", argoCondMaxSteps)
var errArgoSize = fmt.Errorf("evaluation built more than %d bytes", argoCondMaxSize)

func (b *argoBudget) grow(n int) error {
	if b.size += n; b.size > argoCondMaxSize {
		return errArgoSize
	}
	return nil
}

// options are the compile options that route the condition through the
// budget: closure bodies tick __step, + is __add, every function argument
// is weighed by __arg, and repeat and replace check their result's size
// before they build it.
func (b *argoBudget) options() []expr.Option {
	return []expr.Option{
		expr.Patch(argoPatch{}),
		expr.Function("__step", func(p ...any) (any, error) {
			if b.steps++; b.steps > argoCondMaxSteps {
				return nil, errArgoSteps
			}
			return p[0], nil
		}),
		expr.Function("__add", func(p ...any) (any, error) {
			out := runtime.Add(p[0], p[1])
			if s, ok := out.(string); ok {
				return s, b.grow(len(s))
			}
			return out, nil
		}),
		expr.Function("__arg", func(p ...any) (any, error) {
			return p[0], b.grow(argoSize(p[0], argoCondMaxSize-b.size+1))
		}),
		expr.Function("repeat", func(p ...any) (any, error) {
			s, n := fmt.Sprint(p[0]), runtime.ToInt(p[1])
			if n < 0 {
				return nil, fmt.Errorf("invalid argument for repeat (expected positive integer, got %d)", n)
			}
			if len(s) > 0 && n > argoCondMaxSize/len(s) {
				return nil, errArgoSize
			}
			return strings.Repeat(s, n), b.grow(len(s) * n)
		}),
		expr.Function("replace", func(p ...any) (any, error) {
			s, old, repl := fmt.Sprint(p[0]), fmt.Sprint(p[1]), fmt.Sprint(p[2])
			n := strings.Count(s, old)
			if len(repl) > 0 && n > argoCondMaxSize/len(repl) {
				return nil, errArgoSize
			}
			if err := b.grow(len(s) + n*len(repl)); err != nil {
				return nil, err
			}
			return strings.ReplaceAll(s, old, repl), nil
		}),
	}
}

// argoSize is v's size in bytes of text and elements, counted up to max.
func argoSize(v any, max int) int {
	n := 1
	switch x := v.(type) {
	case string:
		return len(x) + 1
	case []any:
		for _, e := range x {
			if n += argoSize(e, max-n); n > max {
				return n
			}
		}
	case map[string]any:
		for k, e := range x {
			if n += len(k) + argoSize(e, max-n); n > max {
				return n
			}
		}
	case []string:
		for _, e := range x {
			if n += len(e) + 1; n > max {
				return n
			}
		}
	case []float64:
		n += len(x)
	case []int:
		n += len(x)
	}
	return n
}

// argoPatch wraps closure bodies, + and function arguments in the budget's
// functions.
type argoPatch struct{}

func (argoPatch) Visit(node *ast.Node) {
	call := func(name string, args ...ast.Node) *ast.CallNode {
		return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: args}
	}
	switch n := (*node).(type) {
	case *ast.PredicateNode:
		if !argoPatched(n.Node) {
			n.Node = call("__step", n.Node)
		}
	case *ast.BinaryNode:
		if n.Operator == "+" {
			ast.Patch(node, call("__add", n.Left, n.Right))
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); !ok || !strings.HasPrefix(id.Value, "__") {
			weigh(n.Arguments, call)
		}
	case *ast.BuiltinNode:
		weigh(n.Arguments, call)
	}
}

// weigh wraps arguments in __arg, unless one is a closure: all, map or
// reduce walk their array without copying it, and their steps are counted.
func weigh(args []ast.Node, call func(string, ...ast.Node) *ast.CallNode) {
	for _, a := range args {
		if _, closure := a.(*ast.PredicateNode); closure {
			return
		}
	}
	for i, a := range args {
		args[i] = call("__arg", a)
	}
}

func argoPatched(n ast.Node) bool {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == "__step"
}
