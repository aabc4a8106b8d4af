package main

import (
	"sort"
	"strings"
)

// suggest is the candidate a mistyped name most likely meant: the same
// name with - for _ (blast_radius), or one within two edits of it
// (analyse, falsificaton, --plannd); "" when none is close.
func suggest(name string, candidates []string) string {
	norm := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	best, bestD := "", 3
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if c == norm {
			return c
		}
		limit := 2
		if len(c) <= 4 {
			limit = 1
		}
		if d := editDistance(norm, c); d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of two neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func commandNames() []string {
	var out []string
	for n := range commands {
		if !strings.HasPrefix(n, "__") {
			out = append(out, n)
		}
	}
	return out
}
