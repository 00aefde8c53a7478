// JobrunPlan
