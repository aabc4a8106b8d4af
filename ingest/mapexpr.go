package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/internal/sandbox"
)

// A --map expression is one scalar expression over the row's own fields.
// It is parsed by DuckDB's parser (json_serialize_sql), its syntax tree is
// walked against the allow-lists below (column references, constants,
// operators, CASE, casts and pure scalar functions; no subquery, table
// function, aggregate, window, parameter, star or second statement), and
// what is spliced into the ingest's SQL is DuckDB's own rendering of that
// tree (json_deserialize_sql), never the user's text: a comment or an
// unbalanced parenthesis cannot reach the statement around it.

// mapClasses are the expression node classes a mapping may hold.
var mapClasses = []string{"BETWEEN", "CASE", "CAST", "COLUMN_REF", "COMPARISON", "CONJUNCTION", "CONSTANT", "FUNCTION", "OPERATOR"}

// mapOperators are the OPERATOR node types a mapping may hold.
var mapOperators = []string{"OPERATOR_NOT", "OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL", "COMPARE_IN", "COMPARE_NOT_IN",
	"OPERATOR_COALESCE", "OPERATOR_NULLIF", "OPERATOR_TRY", "ARRAY_EXTRACT", "ARRAY_SLICE"}

// mapFunctions are the functions (and operators DuckDB spells as
// functions) a mapping may call: arithmetic, text, time and JSON functions
// whose result depends on their arguments alone.
var mapFunctions = []string{
	"+", "-", "*", "/", "//", "%", "^", "**", "||", "&", "|", "<<", ">>", "~", "@", "->", "->>",
	"~~", "!~~", "~~*", "!~~*", "~~~", "!~~~", "regexp_full_match",
	"abs", "cbrt", "ceil", "ceiling", "exp", "floor", "greatest", "least", "ln", "log", "log10", "log2",
	"mod", "pow", "power", "round", "sign", "sqrt", "trunc", "isnan", "isinf", "isfinite",
	"ascii", "chr", "concat", "concat_ws", "contains", "ends_with", "format", "instr", "lcase", "left",
	"length", "lower", "lpad", "ltrim", "position", "prefix", "printf", "regexp_extract", "regexp_matches",
	"regexp_replace", "repeat", "replace", "reverse", "right", "rpad", "rtrim", "split_part", "starts_with",
	"strlen", "strpos", "substr", "substring", "suffix", "trim", "ucase", "upper",
	"if", "ifnull", "nullif",
	"date_diff", "date_part", "date_trunc", "datediff", "datepart", "datetrunc", "epoch", "epoch_ms",
	"epoch_ns", "epoch_us", "make_timestamp", "strftime", "strptime", "to_timestamp", "try_strptime",
	"to_milliseconds", "to_seconds", "to_microseconds",
	"json_extract", "json_extract_path", "json_extract_path_text", "json_extract_string", "json_type",
	"json_valid", "json_value",
}

// checkedMap parses m's expression and returns DuckDB's rendering of it,
// once it is known to be one allowed scalar expression.
func (l *loader) checkedMap(ctx context.Context, m Mapping) (string, error) {
	sql, err := l.renderMap(ctx, m.Expr)
	if err == nil {
		// The rendering is what runs: check it too, so a rendering that
		// parsed differently could not slip past the walk.
		_, err = l.renderMap(ctx, sql)
	}
	if err != nil {
		return "", param.Errorf("map", "{map} %s=%s: %w", m.Column, m.Expr, err)
	}
	return sql, nil
}

func (l *loader) renderMap(ctx context.Context, expr string) (string, error) {
	var tree string
	if err := l.conn.QueryRowContext(ctx, `SELECT json_serialize_sql($1::VARCHAR)::VARCHAR`, "SELECT "+expr).Scan(&tree); err != nil {
		return "", errors.New(sqlMsg(err))
	}
	node, err := mapNode(tree)
	if err != nil {
		return "", err
	}
	if err := walkMap(node); err != nil {
		return "", err
	}
	if err := checkMapSizes(node, limits{maxRecord: l.opts.MaxRecord}.record()); err != nil {
		return "", err
	}
	var sql string
	if err := l.conn.QueryRowContext(ctx, `SELECT json_deserialize_sql($1::JSON)`, tree).Scan(&sql); err != nil {
		return "", errors.New(sqlMsg(err))
	}
	rest, ok := strings.CutPrefix(sql, "SELECT ")
	if !ok {
		return "", fmt.Errorf("not an expression: %q", sql)
	}
	return rest, nil
}

// mapNode is the one expression of "SELECT expr" as DuckDB parsed it.
func mapNode(tree string) (map[string]any, error) {
	var doc struct {
		Error        bool   `json:"error"`
		ErrorMessage string `json:"error_message"`
		Statements   []struct {
			Params []any `json:"named_param_map"`
			Node   struct {
				Type       string           `json:"type"`
				From       map[string]any   `json:"from_table"`
				SelectList []map[string]any `json:"select_list"`
				Where      any              `json:"where_clause"`
				Having     any              `json:"having"`
				Qualify    any              `json:"qualify"`
				Sample     any              `json:"sample"`
				Groups     []any            `json:"group_expressions"`
				Modifiers  []any            `json:"modifiers"`
				CTEs       struct {
					Map []any `json:"map"`
				} `json:"cte_map"`
			} `json:"node"`
		} `json:"statements"`
	}
	if err := json.Unmarshal([]byte(tree), &doc); err != nil {
		return nil, err
	}
	if doc.Error && strings.Contains(doc.ErrorMessage, "Only SELECT statements") {
		return nil, errors.New("want one expression, not several statements")
	}
	if doc.Error {
		return nil, fmt.Errorf("not an expression: %s", strings.ReplaceAll(doc.ErrorMessage, "\n", " "))
	}
	if len(doc.Statements) != 1 {
		return nil, errors.New("want one expression, not several statements")
	}
	s := doc.Statements[0]
	n := s.Node
	if n.Type != "SELECT_NODE" || n.From["type"] != "EMPTY" || n.Where != nil || n.Having != nil || n.Qualify != nil ||
		n.Sample != nil || len(n.Groups) > 0 || len(n.Modifiers) > 0 || len(n.CTEs.Map) > 0 || len(s.Params) > 0 {
		return nil, errors.New("want one expression over the row's fields (no FROM, WHERE, GROUP BY, ORDER BY, parameters)")
	}
	if len(n.SelectList) != 1 {
		return nil, fmt.Errorf("want one expression, got %d", len(n.SelectList))
	}
	if alias, _ := n.SelectList[0]["alias"].(string); alias != "" {
		return nil, errors.New("want an expression without AS")
	}
	return n.SelectList[0], nil
}

// walkMap checks every node of the expression tree.
func walkMap(v any) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := walkMap(e); err != nil {
				return err
			}
		}
	case map[string]any:
		class, isExpr := x["class"].(string)
		if isExpr {
			if err := checkMapNode(class, x); err != nil {
				return err
			}
			if class == "CONSTANT" {
				return nil
			}
		}
		for _, e := range x {
			if err := walkMap(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkMapNode(class string, n map[string]any) error {
	typ, _ := n["type"].(string)
	switch {
	case !slices.Contains(mapClasses, class):
		return fmt.Errorf("%s is not allowed: want one scalar expression over the row's fields", strings.ToLower(strings.ReplaceAll(typ, "_", " ")))
	case class == "OPERATOR" && !slices.Contains(mapOperators, typ):
		return fmt.Errorf("operator %s is not allowed", strings.ToLower(typ))
	case class == "COLUMN_REF":
		if names, _ := n["column_names"].([]any); len(names) != 1 {
			return errors.New("want a field's plain name, not a qualified one")
		}
	case class == "FUNCTION":
		return checkMapFunction(n)
	}
	return nil
}

func checkMapFunction(n map[string]any) error {
	name, _ := n["function_name"].(string)
	schema, _ := n["schema"].(string)
	catalog, _ := n["catalog"].(string)
	orders, _ := n["order_bys"].(map[string]any)
	if list, _ := orders["orders"].([]any); len(list) > 0 || n["distinct"] == true || n["filter"] != nil || n["export_state"] == true {
		return fmt.Errorf("%s: want a scalar function call (no DISTINCT, FILTER, ORDER BY)", name)
	}
	if schema != "" || catalog != "" || !slices.Contains(mapFunctions, strings.ToLower(name)) {
		return fmt.Errorf("function %s is not allowed (docs/map.md lists those that are)", name)
	}
	return nil
}

// prepareMaps checks every mapping before any file is read and keeps their
// renderings, then closes the sandbox.
func (l *loader) prepareMaps(ctx context.Context) error {
	if len(l.opts.Maps) == 0 {
		return nil
	}
	l.mapSQL = make([]string, len(l.opts.Maps))
	for i, m := range l.opts.Maps {
		var err error
		if l.mapSQL[i], err = l.checkedMap(ctx, m); err != nil {
			return err
		}
	}
	return l.sandboxMaps(ctx)
}

// sandboxMaps closes the database instance's file, URL and extension access
// before a mapping is evaluated, as a read-only open's sandbox does: even an
// expression that passed the walk cannot reach a file. Ingest itself needs
// none of it (it reads files in Go and hands DuckDB Arrow batches); it
// cannot be reopened while this instance lives.
func (l *loader) sandboxMaps(ctx context.Context) error {
	for _, s := range sandbox.Settings {
		if _, err := l.conn.ExecContext(ctx, s); err != nil {
			return param.Errorf("map", "sandbox {map} (%s): %w", s, err)
		}
	}
	return nil
}
