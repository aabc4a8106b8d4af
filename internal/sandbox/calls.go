package sandbox

import "strings"

// Call is a name a query calls: an identifier followed by "(", or the name
// after PRAGMA.
type Call struct {
	Name   string // lower case, without schema or catalog
	Pragma bool
}

// Calls lists what q calls, in order, skipping string literals and
// comments. It reads every statement kind alike (SELECT, CALL, CREATE ...
// AS, PRAGMA), which DuckDB's JSON serializer cannot. Where it could be read
// two ways it errs towards seeing a call: a block comment ends at its first
// "*/" (were DuckDB to nest them, more text would be read as code, not less).
func Calls(q string) []Call {
	l := lexer{s: q}
	var calls []Call
	pragma := false
	for {
		tok, ok := l.next()
		if !ok {
			return calls
		}
		switch {
		case tok.ident && pragma:
			calls = append(calls, Call{Name: lowerASCII(tok.text), Pragma: true})
			pragma = false
		case tok.ident && !tok.quoted && strings.EqualFold(tok.text, "pragma"):
			pragma = true
		case tok.ident && l.peek() == '(':
			calls = append(calls, Call{Name: lowerASCII(tok.text)})
		default:
			pragma = false
		}
	}
}

type token struct {
	text          string
	ident, quoted bool
}

type lexer struct {
	s string
	i int
}

// next returns the next identifier (its text) or other token (one byte,
// or a whole literal); false at the end.
func (l *lexer) next() (token, bool) {
	l.skipSpace()
	if l.i >= len(l.s) {
		return token{}, false
	}
	c := l.s[l.i]
	switch {
	case c == '\'':
		l.quoted('\'', false)
	case (c == 'e' || c == 'E') && l.at(l.i+1) == '\'':
		l.i++
		l.quoted('\'', true)
	case c == '"':
		start := l.i + 1
		l.quoted('"', false)
		return token{text: strings.ReplaceAll(l.s[start:max(start, l.i-1)], `""`, `"`), ident: true, quoted: true}, true
	case c == '$' && l.dollarQuoted():
	case isIdentStart(c):
		start := l.i
		for l.i < len(l.s) && isIdentPart(l.s[l.i]) {
			l.i++
		}
		return token{text: l.s[start:l.i], ident: true}, true
	default:
		l.i++
	}
	return token{text: "?"}, true
}

// quoted skips a literal that starts at l.i and ends at an undoubled q;
// with backslash, \x escapes any byte (E'...').
func (l *lexer) quoted(q byte, backslash bool) {
	l.i++
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		switch {
		case backslash && c == '\\':
			l.i++
		case c == q && l.at(l.i) == q:
			l.i++
		case c == q:
			return
		}
	}
}

// dollarQuoted skips $tag$ ... $tag$ when one starts at l.i.
func (l *lexer) dollarQuoted() bool {
	j := l.i + 1
	for j < len(l.s) && isIdentPart(l.s[j]) && l.s[j] != '$' {
		j++
	}
	if j >= len(l.s) || l.s[j] != '$' || (j > l.i+1 && l.s[l.i+1] >= '0' && l.s[l.i+1] <= '9') {
		return false
	}
	tag := l.s[l.i : j+1]
	end := strings.Index(l.s[j+1:], tag)
	if end < 0 {
		l.i = len(l.s)
	} else {
		l.i = j + 1 + end + len(tag)
	}
	return true
}

func (l *lexer) skipSpace() {
	for l.i < len(l.s) {
		switch c := l.s[l.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '-' && l.at(l.i+1) == '-':
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		case c == '/' && l.at(l.i+1) == '*':
			end := strings.Index(l.s[l.i+2:], "*/")
			if end < 0 {
				l.i = len(l.s)
			} else {
				l.i += 2 + end + 2
			}
		default:
			return
		}
	}
}

// peek is the next byte after spaces and comments, 0 at the end.
func (l *lexer) peek() byte {
	save := l.i
	l.skipSpace()
	c := l.at(l.i)
	l.i = save
	return c
}

func (l *lexer) at(i int) byte {
	if i < len(l.s) {
		return l.s[i]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }
