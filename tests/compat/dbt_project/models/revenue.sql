select count(*) as orders, sum(price) as revenue from {{ ref('orders') }}
