package hypothesis

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/store"
)

// CheckPlanned parses pred with DuckDB's own parser, as the select list of
// "SELECT pred", and wants exactly one expression there: no second statement,
// no set operation, no FROM, WHERE, GROUP BY, ORDER BY, LIMIT or WITH, no
// subquery and no parameter anywhere inside. It returns the reason pred is
// refused, or "".
func CheckPlanned(db store.Querier, pred string) (string, error) {
	var js string
	if err := db.QueryRow(`SELECT json_serialize_sql(?::VARCHAR)::VARCHAR`, "SELECT "+pred).Scan(&js); err != nil {
		return "", fmt.Errorf("parse planned predicate: %w", err)
	}
	var tree struct {
		Error        bool   `json:"error"`
		ErrorMessage string `json:"error_message"`
		Statements   []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return "", fmt.Errorf("parse planned predicate: %w", err)
	}
	switch {
	case tree.Error && strings.Contains(tree.ErrorMessage, "Only SELECT"):
		return "not several statements", nil
	case tree.Error:
		return "but it does not parse as one: " + tree.ErrorMessage, nil
	case len(tree.Statements) != 1:
		return fmt.Sprintf("not %d statements", len(tree.Statements)), nil
	}
	return checkSelectNode(tree.Statements[0].Node), nil
}

// CheckPlannedType wants pred to be BOOLEAN over the experiment window's
// columns (DuckDB would cast an integer or a string in WHERE silently).
func CheckPlannedType(db store.Querier, pred, exp string, start int64) (string, error) {
	return notBoolean(db, `SELECT (`+pred+`) AS planned FROM experiment_window(?, ?) LIMIT 0`, exp, start)
}

// checkSelectNode checks the serialized "SELECT pred".
func checkSelectNode(n map[string]any) string {
	switch {
	case n["type"] == "SET_OPERATION_NODE":
		return "not a set operation (UNION, EXCEPT, INTERSECT)"
	case n["type"] != "SELECT_NODE":
		return "not a query"
	}
	list, _ := n["select_list"].([]any)
	if len(list) != 1 {
		return fmt.Sprintf("not %d expressions", len(list))
	}
	from, _ := n["from_table"].(map[string]any)
	if from["type"] != "EMPTY" {
		return "not a query with FROM"
	}
	for _, k := range []string{"where_clause", "having", "qualify", "sample"} {
		if n[k] != nil {
			return "not a query with " + strings.ToUpper(strings.ReplaceAll(strings.TrimSuffix(k, "_clause"), "_", " "))
		}
	}
	if g, _ := n["group_expressions"].([]any); len(g) > 0 {
		return "not a query with GROUP BY"
	}
	if m, _ := n["modifiers"].([]any); len(m) > 0 {
		return "not a query with ORDER BY, LIMIT or DISTINCT"
	}
	if cte, _ := n["cte_map"].(map[string]any); cte != nil {
		if m, _ := cte["map"].([]any); len(m) > 0 {
			return "not a query with WITH"
		}
	}
	return checkExpr(list[0])
}

// checkExpr walks an expression tree for subqueries and parameters.
func checkExpr(v any) string {
	switch x := v.(type) {
	case map[string]any:
		switch x["class"] {
		case "SUBQUERY":
			return "with no subquery inside"
		case "PARAMETER":
			return "with no parameter ($1, ?) inside"
		}
		for _, k := range slices.Sorted(maps.Keys(x)) { // the same reason every time
			if r := checkExpr(x[k]); r != "" {
				return r
			}
		}
	case []any:
		for _, c := range x {
			if r := checkExpr(c); r != "" {
				return r
			}
		}
	}
	return ""
}

// notBoolean runs a query of one column without reading rows and says
// "not TYPE" unless the column is BOOLEAN ("" when it is).
func notBoolean(db store.Querier, q string, args ...any) (string, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return "", err
	}
	if t := types[0].DatabaseTypeName(); t != "BOOLEAN" {
		return "not " + t, nil
	}
	return "", nil
}
