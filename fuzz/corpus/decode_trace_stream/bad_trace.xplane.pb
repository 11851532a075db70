{"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":5}]}
