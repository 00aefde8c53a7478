print("jobrun")
