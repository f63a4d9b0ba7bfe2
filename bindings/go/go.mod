module llmmem

go 1.19
