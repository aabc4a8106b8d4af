package analyze

// SQL runs an ad-hoc query and returns its rows.
func SQL(db Querier, q string) (*Result, error) {
	return query(db, "sql", nil, q)
}
