package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// SaveParam stores key = value with the experiment (named, or the only
// one), merged into its parameters: later analyses and reports use it as
// their default. It returns the experiment's name.
func SaveParam(ctx context.Context, db *DB, experiment, key string, value any) (string, error) {
	e, err := FindExperiment(WithContext(ctx, db), experiment)
	if err != nil {
		return "", err
	}
	patch, err := json.Marshal(map[string]any{key: value})
	if err != nil {
		return "", err
	}
	_, err = db.ExecContext(ctx, `UPDATE experiments SET params = json_merge_patch(coalesce(params, '{}'), ?::JSON) WHERE experiment = ?`,
		string(patch), e.Name)
	if err != nil {
		return "", fmt.Errorf("store %s with experiment %s: %w", key, e.Name, err)
	}
	return e.Name, nil
}
