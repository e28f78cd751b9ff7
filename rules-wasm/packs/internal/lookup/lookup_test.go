package lookup

import (
	"fmt"
	"testing"
)

func TestTableAgreesWithAMap(t *testing.T) {
	var tab Table
	want := map[string]uint64{}
	for i := 0; i < 500; i++ {
		// Many keys share length, first and last byte: they collide in
		// hash and must still be told apart.
		k := fmt.Sprintf("k%03dz", i)
		if i%7 == 0 {
			k = fmt.Sprintf("x%dy", i%13)
		}
		bit := uint64(1) << (i % 64)
		tab.Add(k, bit)
		want[k] |= bit
	}
	tab.Add("", 1<<3)
	want[""] |= 1 << 3
	if tab.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", tab.Len(), len(want))
	}
	for k, v := range want {
		if got := tab.Get(k); got != v {
			t.Errorf("Get(%q) = %#x, want %#x", k, got, v)
		}
	}
	for _, k := range []string{"k500z", "k00z", "x", "xy", "k000", "zzzzzz"} {
		if got := tab.Get(k); got != 0 {
			t.Errorf("Get(%q) = %#x for a key never added", k, got)
		}
	}
	var empty Table
	if empty.Get("rm") != 0 {
		t.Error("an empty table holds nothing")
	}
}

func TestGetDoesNotAllocate(t *testing.T) {
	var tab Table
	tab.Add("curl", 1)
	tab.Add("wget", 2)
	if n := testing.AllocsPerRun(100, func() {
		if tab.Get("curl") != 1 || tab.Get("ls") != 0 {
			t.Fatal("wrong answer")
		}
	}); n != 0 {
		t.Errorf("Get allocates %.0f times", n)
	}
}
