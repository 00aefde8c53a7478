// JobrunReport
