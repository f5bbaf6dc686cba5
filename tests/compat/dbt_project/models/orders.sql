select 1 as order_id, 'espresso' as item, 2.5 as price
union all
select 2, 'latte', 3.9
