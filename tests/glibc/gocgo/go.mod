module elfthp/gocgo

go 1.19
