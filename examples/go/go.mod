module llmmem/examples/go

go 1.19

require llmmem v0.0.0

// The bindings from this checkout (bindings/go); no download.
replace llmmem => ../../bindings/go
