;; Paid orders: how many, and the revenue per customer.
(let [paid (filter #(= (:status %) "paid") data/orders)]
  {:paid-orders (count paid)
   :revenue-by-customer
   (reduce (fn [totals {:keys [customer total]}]
             (assoc totals customer (+ (get totals customer 0) total)))
           {}
           paid)})
