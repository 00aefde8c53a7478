// JobrunFetch
