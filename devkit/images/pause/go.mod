module local/pause

go 1.22
