package main

import (
	"slices"
	"testing"
)

func TestSelectScenarios(t *testing.T) {
	tests := []struct {
		only, skip string
		want       scenarios
	}{
		{"", "", scenarios{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"1", "", scenarios{1}},
		{"4,6", "", scenarios{4, 6}},
		{" 6, 4 ", "", scenarios{4, 6}},
		{"", "1,2,3", scenarios{4, 5, 6, 7, 8, 9, 10, 11}},
		{"7", "", scenarios{7}},
		{"3", "", scenarios{2, 3}}, // 3 harvests what 2 followed
		{"", "2", scenarios{1, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"8", "", scenarios{8}},
		{"9,1", "", scenarios{1, 9}},
		{"4,5", "5", scenarios{4}},
		{"10", "", scenarios{10}},
		{"11", "", scenarios{11}},
	}
	for _, tt := range tests {
		got, err := selectScenarios(tt.only, tt.skip)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("--only %q --skip %q: %v, %v; want %v", tt.only, tt.skip, got, err, tt.want)
		}
	}
	for _, bad := range []string{"0", "12", "four"} {
		if _, err := selectScenarios(bad, ""); err == nil {
			t.Errorf("--only %s was accepted", bad)
		}
	}
}
