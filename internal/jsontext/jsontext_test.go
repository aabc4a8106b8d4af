package jsontext

import "testing"

func TestMarshalKeepsText(t *testing.T) {
	got, err := Marshal(map[string]any{"threshold": "p(95)<200 & x>1", "n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":3,"threshold":"p(95)<200 & x>1"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("a func marshalled")
	}
}
