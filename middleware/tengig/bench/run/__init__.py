"""A whole run: the suite (pool, then each client's network and SMB, then the verdict), the suite with
joined desktops, the run recorded in the results database, its aggregate verdict and text report, and a
run driven over a tengig API host."""
