// JobrunTestSupport
