// JobrunCLI
