/** A customer's orders, summed (Voucherify's `summary.orders`). */
export interface CustomerOrderTotals {
  count: number;
  totalAmount: number;
  lastAmount: number;
  lastDate: Date | null;
}

/**
 * Asked by the customer's answer, answered by the module that owns orders (points). Customers stand below
 * points and cannot import it: this class is the token the composition (`app/`) binds to the orders'
 * repository, so the question points down and nothing imports upwards.
 */
export abstract class CustomerOrderStats {
  abstract customerTotals(projectId: string, customerId: string): Promise<CustomerOrderTotals>;
}
